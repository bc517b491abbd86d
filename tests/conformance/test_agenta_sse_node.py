"""Agenta SSE streams with event ids on a standard SSE parser (``eventsource-parser`` in node):
ids on every event, keepalive comments that never become events, and a reconnect with
``Last-Event-ID`` — on one server, and through a second worker on one PostgreSQL and one Redis."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app, turnwire_process
from turnwire.agents import demo_agent
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

E2E_AGENTS = Path(__file__).parent.parent / "integration" / "store_e2e"
KEEPALIVE = 0.1


async def gap(ctx: TurnContext) -> AsyncIterator[Event]:
    """One message, then silence for several keepalive intervals, then another (as
    ``store_e2e_agents.gap``, which the worker processes serve)."""
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta="before")
    await asyncio.sleep(KEEPALIVE * 5)
    yield MessageDelta(id="m1", delta="after")
    yield MessageEnd(id="m1")


@pytest.mark.node
def test_agenta_sse_on_a_standard_parser(tmp_path: Path) -> None:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'sse.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        keepalive_seconds=KEEPALIVE,
    )
    app = create_app({"demo": demo_agent, "gap": gap}, default_agent="demo", settings=settings)
    with serve_app(app) as url:
        passed = run_node_tests("agenta_sse.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 2


@pytest.mark.node
def test_agenta_sse_resumes_through_a_second_worker(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    env = {
        "PYTHONPATH": os.pathsep.join([str(E2E_AGENTS), os.environ.get("PYTHONPATH", "")]),
        "TURNWIRE_REDIS_URL": redis_url,
    }
    args = ("--db", postgres_url, "--keepalive", str(KEEPALIVE), "--agent", "gap=store_e2e_agents:gap")
    with (
        turnwire_process(tmp_path, *args, env=env) as (first, _),
        turnwire_process(tmp_path, *args, env=env) as (second, _),
    ):
        node_env = {**os.environ, "SERVER_URL": first, "RESUME_URL": second}
        passed = run_node_tests("agenta_sse.test.mjs", node_env, timeout=120)
    assert passed == 2
