"""Redis work of a traced turn as its child spans, on a real Redis: the write of the turn log's end
(what a client resuming the stream on another worker reads), and the wait for another worker to
store the conversation's previous turn, as long as the wait was."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from otlp_receiver import Receiver, otlp_receiver

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.conversations.redis_pubsub import client_for
from turnwire.conversations.redis_turnlogs import RedisTurnLogs
from turnwire.server import Settings, create_app

HELD = 0.5  # how long the other worker's previous turn stays "being stored"


async def _other_worker(
    redis_url: str, session: str, started: threading.Event, release: threading.Event
) -> None:
    """A turn of ``session`` that sent its last event and is being stored, until ``release``."""
    client = client_for(redis_url)
    logs = RedisTurnLogs(client)
    try:
        logs.open(session, "previous-turn", "agenta/sse")
        logs.ending(session, "previous-turn")
        while await logs.ending_turn(session) != "previous-turn":
            await asyncio.sleep(0.01)
        started.set()
        while not release.is_set():
            await asyncio.sleep(0.01)
        logs.close(session, "previous-turn")
        while await logs.running(session) is not None:
            await asyncio.sleep(0.01)
    finally:
        await logs.aclose()
        await client.aclose()


@contextmanager
def _traced(redis_url: str, home: Path) -> Iterator[tuple[str, Any, Receiver]]:
    with otlp_receiver() as receiver, pytest.MonkeyPatch.context() as env:
        env.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/v1/traces")
        settings = Settings(
            otel=True,
            redis_url=redis_url,
            db_url=f"sqlite:///{home / 'store.db'}",
            approval_secret_file=str(home / "secret"),
        )
        app = create_app({"demo": demo_agent}, settings=settings)
        env.undo()
        try:
            with serve_app(app) as url:
                yield url, app, receiver
        finally:
            app.state.turnwire.observe.shutdown()


def test_the_write_of_a_turn_log_s_end_is_a_child_span(redis_url: str, tmp_path: Path) -> None:
    with _traced(redis_url, tmp_path) as (url, app, receiver):
        body = {"session_id": "logged", "data": {"inputs": {"messages": [{"role": "user", "content": "hi"}]}}}
        response = httpx.post(url + "/invoke", json=body, headers={"accept": "text/event-stream"}, timeout=30)
        assert response.status_code == 200
        trace_id = response.headers["x-ag-trace-id"]
        app.state.turnwire.observe.flush()
        [written] = receiver.wait_for(
            lambda spans: [s for s in spans if s.trace_id == trace_id and s.name == "redis turn_log"]
        )
        [turn] = [s for s in receiver.trace(trace_id) if s.name.startswith("invoke_agent")]
    assert written.parent_id == turn.span_id and written.kind == 3  # CLIENT
    assert written.attributes["db.system.name"] == "redis" and written.attributes["turnwire.turns"] >= 1
    assert turn.start <= written.start <= written.end


def test_the_wait_for_another_worker_s_turn_is_a_child_span(redis_url: str, tmp_path: Path) -> None:
    session = "waits-for-b"
    with _traced(redis_url, tmp_path) as (url, app, receiver):
        started, release = threading.Event(), threading.Event()
        other = threading.Thread(
            target=lambda: asyncio.run(_other_worker(redis_url, session, started, release))
        )
        other.start()
        assert started.wait(10)
        threading.Timer(HELD, release.set).start()
        began = time.monotonic()
        body = {
            "session_id": session,
            "data": {"inputs": {"messages": [{"role": "user", "content": "hi"}]}},
        }
        response = httpx.post(url + "/invoke", json=body, headers={"accept": "text/event-stream"}, timeout=30)
        took = time.monotonic() - began
        other.join(10)
        assert response.status_code == 200
        trace_id = response.headers["x-ag-trace-id"]
        assert app.state.turnwire.observe.flush()
    spans = receiver.trace(trace_id)
    [turn] = [s for s in spans if s.name.startswith("invoke_agent")]
    [wait] = [s for s in spans if s.name == "wait previous turn"]
    assert wait.parent_id == turn.span_id and wait.attributes["db.system.name"] == "redis"
    assert took >= HELD * 0.8
    assert HELD * 0.5 <= (wait.end - wait.start) / 1e9 <= took
    assert turn.start <= wait.start and wait.end <= turn.end
