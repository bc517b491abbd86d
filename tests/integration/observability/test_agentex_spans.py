"""Agentex's ``/spans`` through the official client: a traced turn's spans by task and by trace,
one by id, and client spans created and updated; each tenant sees its own only."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from agentex import Agentex, NotFoundError, UnprocessableEntityError
from otlp_receiver import otlp_receiver

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app

ACME, BETA = "sk-acme-0123456789abcdef", "sk-beta-0123456789abcdef"


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("spans")
    with otlp_receiver() as receiver, pytest.MonkeyPatch.context() as env:
        env.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/v1/traces")
        settings = Settings(
            otel=True,
            api_keys=f"acme:{ACME},beta:{BETA}",
            db_url=f"sqlite:///{home / 'store.db'}",
            approval_secret_file=str(home / "secret"),
        )
        app = create_app({"demo": demo_agent}, settings=settings)
        env.undo()
        try:
            with serve_app(app) as base:
                yield base
        finally:
            app.state.turnwire.observe.shutdown()


def _client(url: str, key: str) -> Agentex:
    return Agentex(base_url=url, api_key=key, max_retries=0)


def _turn(url: str, key: str, name: str) -> tuple[str, str]:
    """A ``message/send`` turn on a new task: its task id and trace id."""
    headers = {"authorization": f"Bearer {key}"}
    created = httpx.post(
        url + "/agents/name/demo/rpc",
        json={"method": "task/create", "params": {"name": name}},
        headers=headers,
    )
    task_id = created.json()["result"]["id"]
    content = {"type": "text", "author": "user", "content": "weather in Rome"}
    sent = httpx.post(
        url + "/agents/name/demo/rpc",
        json={"method": "message/send", "params": {"task_id": task_id, "content": content}},
        headers=headers,
        timeout=10,
    )
    assert sent.status_code == 200
    return task_id, sent.headers["traceparent"].split("-")[1]


def test_a_traced_turn_spans_are_listed_by_task_and_trace(url: str) -> None:
    task_id, trace_id = _turn(url, ACME, "spans-1")
    client = _client(url, ACME)
    spans = client.spans.list(task_id=task_id)
    names = [s.name for s in spans]
    assert names == ["invoke_agent demo", "execute_tool get_weather"]  # by start time
    turn, tool = spans
    assert turn.trace_id == tool.trace_id == trace_id
    assert tool.parent_id == turn.id
    assert turn.output == {"stop_reason": "end_turn"}
    assert turn.data is not None and turn.data["gen_ai.agent.name"] == "demo"
    assert turn.start_time <= tool.start_time and tool.end_time is not None and turn.end_time is not None
    assert [s.id for s in client.spans.list(trace_id=trace_id)] == [turn.id, tool.id]
    assert client.spans.retrieve(tool.id).name == "execute_tool get_weather"
    # Another tenant sees none of them.
    other = _client(url, BETA)
    assert other.spans.list(task_id=task_id) == []
    with pytest.raises(NotFoundError):
        other.spans.retrieve(turn.id)


def test_client_spans_are_created_and_updated(url: str) -> None:
    task_id, trace_id = _turn(url, ACME, "spans-2")
    client = _client(url, ACME)
    made = client.spans.create(
        name="retrieval",
        start_time="2026-12-01T10:00:00Z",
        trace_id=trace_id,
        task_id=task_id,
        input={"q": "x"},
    )
    assert made.id and made.end_time is None and made.input == {"q": "x"}
    updated = client.spans.update(made.id, end_time="2026-12-01T10:00:01Z", output={"hits": 3})
    assert updated.output == {"hits": 3} and updated.input == {"q": "x"}
    assert updated.end_time is not None and updated.end_time.year == 2026
    assert made.id in [s.id for s in client.spans.list(task_id=task_id)]
    with pytest.raises(UnprocessableEntityError):
        client.spans.create(name="x", start_time="not a time", trace_id=trace_id)
    with pytest.raises(UnprocessableEntityError):  # a task of another tenant is no task of this one
        _client(url, BETA).spans.create(
            name="x", start_time="2026-12-01T10:00:00Z", trace_id="t", task_id=task_id
        )


def test_span_mistakes_name_the_field(url: str) -> None:
    headers = {"authorization": f"Bearer {ACME}"}
    r = httpx.post(url + "/spans", json={"name": "x", "trace_id": "t"}, headers=headers)
    assert r.status_code == 422 and r.json()["data"][0]["loc"] == ["body", "start_time"]
    r = httpx.get(url + "/spans", params={"order_direction": "sideways"}, headers=headers)
    assert r.status_code in (400, 422) and r.json()["data"][0]["loc"] == ["query", "order_direction"]
    assert httpx.get(url + "/spans").status_code == 401
