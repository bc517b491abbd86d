"""Workload 4's apps for ``load.py`` beyond ``turnwire serve`` itself:

- ``app``: what ``turnwire serve --agent fast=count_agent:fast_count`` serves, as an ASGI object
  (``load.py --http granian`` runs it under granian; under uvicorn ``turnwire serve`` runs itself);
- ``nullstore_app``: the same app over a store that keeps nothing (``turnwire-nullstore``): every
  turn still goes through the pipeline, the recorder (TaskMessageUpdate encoding, pub/sub, flush
  scheduling, record building) and the live log; only the database work is gone. It is the bound
  any store engine can approach, not a way to run turnwire.

    granian --interface asgi serve_app:app   # from bench/, TURNWIRE_DB_URL set
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from count_agent import fast_count
from turnwire.agents import builtin_agents
from turnwire.server.app import app_context, create_app
from turnwire.store.base import NewRow, RowChange, SessionTask
from turnwire.store.clock import new_id
from turnwire.store.conversation_list import AGENT_KEY

app = create_app({**builtin_agents(), "fast": fast_count})


class NullStore:
    """The store calls a new-session turn makes (session task, flushes), answered without storing."""

    def __init__(self) -> None:
        self._names = itertools.count()

    async def session_task(
        self, session_id: str, *, tenant: str = "", agent: str | None = None
    ) -> SessionTask:
        # The serving agent is in the new row, as the real store writes it (no label_task after).
        metadata = None if agent is None else {AGENT_KEY: agent}
        task = {"id": new_id(), "name": session_id, "n": next(self._names), "task_metadata": metadata}
        return SessionTask(task, True, 0)

    session_task_soon = session_task

    async def message_clock(self, task_id: str) -> int:
        return 0

    async def write_flush(self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange]) -> None:
        return None

    async def close(self) -> None:
        return None

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"NullStore.{name}: not a call of a new-session turn")


_null = app_context({**builtin_agents(), "fast": fast_count})
_null.store = NullStore()  # type: ignore[assignment]
nullstore_app = create_app(context=_null)
