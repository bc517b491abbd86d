"""What an agent receives for one turn, and the shape an agent has."""

from __future__ import annotations

import os
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from turnwire.model import Event, Message
from turnwire.runtime.ids import scoped_decisions
from turnwire.runtime.transcript import Decision, last_user_text


class _RandomIds:
    """Random version-4 UUIDs as 32 hex digits, cut from a block of ``os.urandom`` bytes.

    As unguessable as ``uuid.uuid4()`` (the same OS random bytes, each used once), but one
    ``os.urandom`` call per 256 ids instead of one per id: that call releases the GIL, which on a
    server with a database thread can hand the GIL over (and wait to get it back) on every request.
    A forked child drops the block it inherited, so no two processes share an id."""

    BLOCK = 16 * 256

    def __init__(self) -> None:
        self._reset()
        os.register_at_fork(after_in_child=self._reset)

    def _reset(self) -> None:
        self._lock = threading.Lock()  # a new one in a child: another thread may have held it
        self._block = b""
        self._at = 0

    def next(self) -> str:
        with self._lock:
            at = self._at
            if at >= len(self._block):
                self._block, at = os.urandom(self.BLOCK), 0
            self._at = at + 16
            raw = bytearray(self._block[at : at + 16])
        raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
        raw[8] = (raw[8] & 0x3F) | 0x80  # RFC 4122 variant
        return raw.hex()


_IDS = _RandomIds()


def new_trace_id() -> str:
    """A fresh 32-hex-digit trace id (the width of a W3C trace id): a random version-4 UUID."""
    return _IDS.next()


def new_random_id() -> str:
    """A fresh unguessable id, 32 hex digits (a random version-4 UUID, as ``uuid4().hex``)."""
    return _IDS.next()


@dataclass(slots=True)
class TurnContext:
    """Everything an agent may read for one turn.

    ``messages`` is the canonical history, oldest first; the last one is usually the new user
    message, or a tool result carrying an approval decision when the client resumes a paused turn.
    New fields are only ever added with defaults, so agents written today keep working.
    """

    messages: list[Message] = field(default_factory=list)
    session_id: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)
    trace_id: str = field(default_factory=new_trace_id)

    def last_user_text(self) -> str:
        """The text of the last user message (see ``history.last_user_text``)."""
        return last_user_text(self.messages)

    def decisions(self) -> dict[str, Decision]:
        """Approval decisions found in the history, by tool call id (see ``history.decisions``).

        A call the runner renamed (``call_1~2``, see ``ids``) is also found under the id the
        agent gave it, for the newest call of that id: an agent that reuses ``call_1`` every turn
        reads the decision about its current call, never an older one's."""
        return scoped_decisions(self.messages)


Agent: TypeAlias = Callable[[TurnContext], AsyncIterator[Event]]
"""An agent: usually an ``async def`` generator function that yields canonical events.

It may also be any callable returning an async iterator. It must not yield ``Done`` to end the
turn — returning ends it — but may yield ``Done(stop_reason=...)`` to say *why* it stopped.
"""
