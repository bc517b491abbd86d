"""Two traced ``turnwire serve`` workers on one PostgreSQL database and one Redis: the spans of a
turn on one are listed by the other's Agentex ``/spans`` (and outlive a restart), and an approval
paused on one and answered through the other is two spans linked across the workers."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from otlp_receiver import Receiver, otlp_receiver
from test_approval_traces import _done, _replay
from test_turn_traces import SSE, _sse

from services import turnwire_process
from store_databases import fresh_database

ACME, BETA = "sk-acme-0123456789abcdef", "sk-beta-0123456789abcdef"
AUTH = {"authorization": f"Bearer {ACME}"}


@pytest.fixture(scope="module")
def receiver() -> Iterator[Receiver]:
    with otlp_receiver() as got:
        yield got


@pytest.fixture(scope="module")
def database(postgres_url: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    return fresh_database("postgresql", tmp_path_factory.mktemp("db"), postgres_url)


def _args(database: str, redis_url: str) -> tuple[str, ...]:
    return (
        "--db",
        database,
        "--redis",
        redis_url,
        "--keepalive",
        "0",
        "--api-key",
        f"acme:{ACME}",
        "--api-key",
        f"beta:{BETA}",
    )


def _env(receiver: Receiver, tmp: Path) -> dict[str, str]:
    return {
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": receiver.url + "/v1/traces",
        "OTEL_BSP_SCHEDULE_DELAY": "100",  # export within a tenth of a second
        "TURNWIRE_APPROVAL_SECRET_FILE": str(tmp / "secret"),  # both workers sign alike
    }


@pytest.fixture
def workers(database: str, redis_url: str, receiver: Receiver, tmp_path: Path) -> Iterator[tuple[str, str]]:
    args, env = _args(database, redis_url), _env(receiver, tmp_path)
    with (
        turnwire_process(tmp_path / "a", *args, env=env) as (url_a, _),
        turnwire_process(tmp_path / "b", *args, env=env) as (url_b, _),
    ):
        yield url_a, url_b


def _agentex_turn(url: str, name: str) -> tuple[str, str]:
    """A ``message/send`` turn on a new Agentex task: its task id and trace id."""
    rpc = url + "/agents/name/demo/rpc"
    created = httpx.post(rpc, json={"method": "task/create", "params": {"name": name}}, headers=AUTH)
    assert created.status_code == 200, created.text
    task_id = created.json()["result"]["id"]
    content = {"type": "text", "author": "user", "content": "weather in Rome"}
    params = {"task_id": task_id, "content": content}
    sent = httpx.post(rpc, json={"method": "message/send", "params": params}, headers=AUTH, timeout=30)
    assert sent.status_code == 200, sent.text
    return task_id, sent.headers["traceparent"].split("-")[1]


def _spans(url: str, key: str = ACME, **query: str) -> list[dict[str, Any]]:
    got = httpx.get(url + "/spans", params=query, headers={"authorization": f"Bearer {key}"}, timeout=10)
    assert got.status_code == 200, got.text
    spans: list[dict[str, Any]] = got.json()
    return spans


def _eventually(read: Any, ok: Any, timeout: float = 10.0) -> Any:
    """``read()`` until ``ok(value)``: a span ended on a worker is stored moments after its turn."""
    deadline = time.monotonic() + timeout
    while True:
        value = read()
        if ok(value) or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def test_a_turn_spans_on_one_worker_are_read_and_changed_on_the_other(workers: tuple[str, str]) -> None:
    url_a, url_b = workers
    task_id, trace_id = _agentex_turn(url_a, "spans-across")
    spans = _eventually(lambda: _spans(url_b, task_id=task_id), lambda s: len(s) == 2)
    assert [s["name"] for s in spans] == ["invoke_agent demo", "execute_tool get_weather"]
    turn, tool = spans
    assert turn["trace_id"] == tool["trace_id"] == trace_id
    assert tool["parent_id"] == turn["id"]
    assert turn["output"] == {"stop_reason": "end_turn"}
    assert turn["data"]["gen_ai.conversation.id"] and turn["data"]["turnwire.wire"] == "agentex"
    assert turn["start_time"] <= tool["start_time"] <= tool["end_time"] <= turn["end_time"]
    assert [s["id"] for s in _spans(url_b, trace_id=trace_id)] == [turn["id"], tool["id"]]
    assert [s["id"] for s in _spans(url_b, trace_id=trace_id, order_direction="desc")] == [
        tool["id"],
        turn["id"],
    ]
    one = httpx.get(f"{url_b}/spans/{tool['id']}", headers=AUTH)
    assert one.status_code == 200 and one.json() == tool
    # Another tenant sees none of them, on either worker.
    assert _spans(url_b, BETA, task_id=task_id) == [] == _spans(url_a, BETA, trace_id=trace_id)
    assert (
        httpx.get(f"{url_b}/spans/{turn['id']}", headers={"authorization": f"Bearer {BETA}"}).status_code
        == 404
    )

    # A client span made on B, changed on A, read on B.
    made = httpx.post(
        url_b + "/spans",
        json={
            "name": "retrieval",
            "start_time": "2026-12-01T11:00:00+01:00",
            "trace_id": trace_id,
            "task_id": task_id,
        },
        headers=AUTH,
    )
    assert made.status_code == 200, made.text
    span_id = made.json()["id"]
    assert made.json()["start_time"] == "2026-12-01T10:00:00.000000+00:00"
    changed = httpx.patch(f"{url_a}/spans/{span_id}", json={"output": {"hits": 2}}, headers=AUTH)
    assert changed.status_code == 200 and changed.json()["output"] == {"hits": 2}
    again = httpx.post(url_a + "/spans", json={**made.json(), "id": span_id}, headers=AUTH)
    assert again.status_code == 409
    read = httpx.get(f"{url_b}/spans/{span_id}", headers=AUTH).json()
    assert read["output"] == {"hits": 2} and read["name"] == "retrieval"
    # The client span started (10:00 UTC) before the turn (now): first by start time.
    assert next(s["name"] for s in _spans(url_b, task_id=task_id)) == "retrieval"


def test_spans_outlive_a_restart(database: str, redis_url: str, receiver: Receiver, tmp_path: Path) -> None:
    args, env = _args(database, redis_url), _env(receiver, tmp_path)
    with turnwire_process(tmp_path / "a", *args, env=env) as (url, _):
        task_id, trace_id = _agentex_turn(url, "spans-restart")
    # SIGTERM: the worker wrote its queued spans before its store closed.
    with turnwire_process(tmp_path / "a", *args, env=env) as (url, _):
        spans = _spans(url, task_id=task_id)
    assert [s["name"] for s in spans] == ["invoke_agent demo", "execute_tool get_weather"]
    assert {s["trace_id"] for s in spans} == {trace_id}


def _invoke(url: str, session: str, messages: list[Any]) -> list[dict[str, Any]]:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    response = httpx.post(url + "/invoke", content=orjson.dumps(body), headers={**SSE, **AUTH}, timeout=30)
    assert response.status_code == 200, response.text
    return _sse(response.content)


def test_an_approval_answered_on_another_worker_links_the_two_turn_spans(
    workers: tuple[str, str], receiver: Receiver
) -> None:
    url_a, url_b = workers
    session = "approval-across"
    asked = [{"role": "user", "content": "delete notes.txt"}]
    paused_frames = _invoke(url_a, session, asked)
    paused_done = _done(paused_frames)
    assert paused_done["stopReason"] == "paused"
    resumed_frames = _invoke(url_b, session, [*asked, _replay(paused_frames)])
    resumed_done = _done(resumed_frames)
    assert resumed_done["stopReason"] == "end_turn"

    def turn_of(trace_id: str) -> Any:
        return lambda spans: [
            s for s in spans if s.trace_id == trace_id and s.name.startswith("invoke_agent")
        ]

    [paused] = receiver.wait_for(turn_of(paused_done["traceId"]), timeout=10)
    [resumed] = receiver.wait_for(turn_of(resumed_done["traceId"]), timeout=10)
    assert paused.attributes["turnwire.stop_reason"] == "paused"
    assert resumed.links == [(paused.trace_id, paused.span_id)]
    assert resumed.attributes["gen_ai.conversation.id"] == session
