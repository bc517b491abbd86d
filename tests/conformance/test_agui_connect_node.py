"""AG-UI reconnect on the real client (``@ag-ui/client`` 1.0.0 ``connectAgent()`` with the
``ReconnectingHttpAgent`` served at ``/agui/client.js``): one server; and two ``turnwire serve``
workers on one PostgreSQL and one Redis, the run started on one and reconnected to on the other."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app, turnwire_process
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

E2E_AGENTS = Path(__file__).parent.parent / "integration" / "store_e2e"


async def long(ctx: TurnContext) -> AsyncIterator[Event]:
    """As many words as the user's message says, one every 10 ms (``store_e2e_agents.long``)."""
    text = ctx.last_user_text().strip()
    yield MessageStart(id="m1")
    for i in range(int(text) if text.isdigit() else 400):
        yield MessageDelta(id="m1", delta=f"w{i} ")
        await asyncio.sleep(0.01)
    yield MessageEnd(id="m1")


@pytest.mark.node
def test_agui_reconnect_on_one_server(tmp_path: Path) -> None:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'connect.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        keepalive_seconds=0,
    )
    with serve_app(create_app({"long": long}, default_agent="long", settings=settings)) as url:
        passed = run_node_tests("agui_connect.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 1


@pytest.mark.node
def test_agui_reconnect_through_a_second_worker(postgres_url: str, redis_url: str, tmp_path: Path) -> None:
    env = {
        "PYTHONPATH": os.pathsep.join([str(E2E_AGENTS), os.environ.get("PYTHONPATH", "")]),
        "TURNWIRE_REDIS_URL": redis_url,
    }
    args = ("--db", postgres_url, "--keepalive", "0", "--agent", "long=store_e2e_agents:long")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        turnwire_process(tmp_path / "a", *args, env=env) as (first, _),
        turnwire_process(tmp_path / "b", *args, env=env) as (second, _),
    ):
        node_env = {**os.environ, "SERVER_URL": first, "RESUME_URL": second}
        passed = run_node_tests("agui_connect.test.mjs", node_env, timeout=120)
    assert passed == 1
