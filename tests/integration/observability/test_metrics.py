"""``GET /metrics`` after a known sequence of turns: counts, sums and buckets as the turns were."""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from prometheus_client.parser import text_string_to_metric_families

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app

SSE = {"accept": "text/event-stream", "content-type": "application/json"}
KEY = {"authorization": "Bearer sk-metrics-0123456789"}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("metrics")
    settings = Settings(
        metrics=True,
        api_keys="acme:sk-metrics-0123456789",
        db_url=f"sqlite:///{home / 'store.db'}",
        approval_secret_file=str(home / "secret"),
    )
    with serve_app(create_app({"demo": demo_agent}, settings=settings)) as base:
        yield base


def _samples(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    response = httpx.get(url + "/metrics", headers=KEY, timeout=10)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(response.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _get(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def _invoke(url: str, session: str, text: str) -> list[dict[str, Any]]:
    body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    response = httpx.post(url + "/invoke", content=orjson.dumps(body), headers=SSE | KEY, timeout=10)
    assert response.status_code == 200
    return [orjson.loads(line[6:]) for line in response.content.split(b"\n") if line.startswith(b"data: {")]


def test_metrics_count_the_turns_by_agent_door_and_stop_reason(url: str) -> None:
    frames = [*_invoke(url, "m1", "hello"), *_invoke(url, "m2", "weather in Oslo")]
    _invoke(url, "m3", "fail")
    _invoke(url, "m4", "delete a.txt")
    chat = {"id": "m5", "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]}
    assert httpx.post(url + "/chat", json=chat, headers=KEY, timeout=10).status_code == 200

    deadline = time.monotonic() + 5
    while True:  # a stream's end is counted once its last byte went out, just after the client read it
        samples = _samples(url)
        if _get(samples, "turnwire_open_streams") == 0 or time.monotonic() > deadline:
            break
    demo = {"gen_ai_agent_name": "demo"}
    agenta = demo | {"turnwire_wire": "agenta"}
    assert _get(samples, "turnwire_turns_total", **agenta, turnwire_stop_reason="end_turn") == 2
    assert _get(samples, "turnwire_turns_total", **agenta, turnwire_stop_reason="error") == 1
    assert _get(samples, "turnwire_turns_total", **agenta, turnwire_stop_reason="paused") == 1
    assert (
        _get(samples, "turnwire_turns_total", **demo, turnwire_wire="vercel", turnwire_stop_reason="end_turn")
        == 1
    )

    duration = "gen_ai_server_request_duration_seconds"
    assert _get(samples, duration + "_count", **agenta, error_type="") == 3
    assert _get(samples, duration + "_count", **agenta, error_type="agent_run_failed") == 1
    buckets = sorted(
        (float(dict(labels)["le"]), value)
        for (name, labels), value in samples.items()
        if name == duration + "_bucket"
        and dict(labels).get("error_type") == ""
        and dict(labels)["turnwire_wire"] == "agenta"
    )
    assert buckets[-1] == (float("inf"), 3)
    assert all(a[1] <= b[1] for a, b in itertools.pairwise(buckets))

    # Tokens: the sums are what the Agenta usage frames of the two answered turns said.
    usage = [f["data"] for f in frames if f["type"] == "usage"]
    assert len(usage) == 2
    tokens = "gen_ai_client_token_usage"
    assert _get(samples, tokens + "_sum", **agenta, gen_ai_token_type="input") == sum(
        u["input"] for u in usage
    )
    assert _get(samples, tokens + "_sum", **agenta, gen_ai_token_type="output") == sum(
        u["output"] for u in usage
    )
    # The first output: of "hello", "weather in Oslo" and "fail" ("Starting…"); "delete" only calls a tool.
    assert _get(samples, "gen_ai_server_time_to_first_token_seconds_count", **agenta) == 3
    assert _get(samples, "gen_ai_server_time_per_output_token_seconds_count", **agenta) == 2

    http = "http_server_request_duration_seconds_count"
    route = {"http_request_method": "POST", "http_route": "/invoke", "http_response_status_code": "200"}
    assert _get(samples, http, **route) == 4
    assert _get(samples, "turnwire_open_streams") == 0
    assert _get(samples, "turnwire_live_turns") == 0
    assert _get(samples, "turnwire_approvals_pending") == 1
    # Every turn opened its conversation from the store: timed by operation name (on SQLite a new
    # session's task is found or queued by ``session_task_soon``).
    store_ops = "turnwire_store_operation_duration_seconds_count"
    assert _get(samples, store_ops, operation="session_task_soon") >= 5
    assert _get(samples, "turnwire_redis_errors_total") == 0


def test_metrics_need_the_api_key(url: str) -> None:
    assert httpx.get(url + "/metrics", timeout=10).status_code == 401


def test_metrics_open_answers_without_a_key(tmp_path: Path) -> None:
    settings = Settings(
        metrics=True,
        metrics_open=True,
        api_keys="acme:sk-x-0123456789abcdef",
        db_url=f"sqlite:///{tmp_path / 's.db'}",
    )
    with serve_app(create_app({"demo": demo_agent}, settings=settings), lifespan="off") as base:
        response = httpx.get(base + "/metrics", timeout=10)
        assert response.status_code == 200
        assert "turnwire_live_turns 0.0" in response.text
        assert httpx.post(base + "/invoke", json={}, timeout=10).status_code == 401
