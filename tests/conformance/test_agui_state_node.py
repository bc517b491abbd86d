"""Shared state on the real AG-UI client: ``RunAgentInput.state`` reaches the agent
(``ctx.parameters["agui"]["state"]``), the agent's state events become the client's state, and
the connect route replays the state the thread's last turn ended with (stored in its note)."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app
from turnwire.agents.demo import demo_agent
from turnwire.model import Event, MessageEvent, StateDelta, StateSnapshot
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app


async def counter(ctx: TurnContext) -> AsyncIterator[Event]:
    """Adds one to the client's ``count`` and notes each message it saw, as a snapshot of the
    state it was given and a patch."""
    given = dict((ctx.parameters.get("agui") or {}).get("state") or {})
    seen = list(given.get("seen") or [])
    yield StateSnapshot({**given, "seen": seen})
    yield StateDelta(
        [
            {"op": "replace", "path": "/count", "value": given.get("count", 0) + 1},
            {"op": "add", "path": "/seen/-", "value": ctx.last_user_text()},
        ]
    )
    yield MessageEvent(f"count is {given.get('count', 0) + 1}")


@pytest.mark.node
def test_agui_state_round_trips_on_the_real_client(tmp_path: Path) -> None:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'turnwire.db'}", keepalive_seconds=0)
    app = create_app({"demo": demo_agent, "counter": counter}, default_agent="demo", settings=settings)
    with serve_app(app) as url:
        passed = run_node_tests("agui_state.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 3
