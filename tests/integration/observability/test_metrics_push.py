"""With an OTLP metrics endpoint configured, the SDK's periodic reader pushes the metrics of
``/metrics`` (under the conventions' names) to the receiver: decoded from the
``ExportMetricsServiceRequest`` protobufs, the counts and buckets are those ``/metrics`` shows."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from otlp_receiver import Receiver, otlp_receiver
from prometheus_client.parser import text_string_to_metric_families

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app

SSE = {"accept": "text/event-stream", "content-type": "application/json"}


def _app(home: Path, receiver: Receiver, *, metrics: bool, env: pytest.MonkeyPatch) -> Any:
    # The reader and its exporter read these when they are built, in create_app.
    env.setenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", receiver.url + "/v1/metrics")
    env.setenv("OTEL_METRIC_EXPORT_INTERVAL", "200")
    env.setenv("OTEL_SERVICE_NAME", "turnwire-metrics")
    settings = Settings(
        metrics=metrics, db_url=f"sqlite:///{home / 'store.db'}", approval_secret_file=str(home / "secret")
    )
    app = create_app({"demo": demo_agent}, settings=settings)
    env.undo()
    return app


@pytest.fixture(scope="module")
def pushed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Receiver]]:
    home: Path = tmp_path_factory.mktemp("push")
    with otlp_receiver() as receiver, pytest.MonkeyPatch.context() as env:
        app = _app(home, receiver, metrics=True, env=env)
        try:
            with serve_app(app) as url:
                yield url, receiver
        finally:
            app.state.turnwire.observe.shutdown()


def _invoke(url: str, session: str, text: str) -> None:
    body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    response = httpx.post(url + "/invoke", content=orjson.dumps(body), headers=SSE, timeout=10)
    assert response.status_code == 200


def _prometheus(url: str) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    response = httpx.get(url + "/metrics", timeout=10)
    assert response.status_code == 200
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


def test_the_pushed_metrics_are_those_of_the_metrics_route(pushed: tuple[str, Receiver]) -> None:
    url, receiver = pushed
    for session, text in (("p1", "hello"), ("p2", "weather in Oslo"), ("p3", "hello")):
        _invoke(url, session, text)
    # Pushed by the periodic reader (no flush asked): wait for an export with all three turns.
    receiver.wait_for(lambda _: sum(p.value for p in receiver.latest("turnwire.turns")) == 3, timeout=10)
    prom = _prometheus(url)

    turns = receiver.latest("turnwire.turns")
    assert {p.kind for p in turns} == {"sum"} and all(p.monotonic for p in turns)
    for point in turns:
        labels = {
            ("gen_ai_agent_name", point.attributes["gen_ai.agent.name"]),
            ("turnwire_wire", point.attributes["turnwire.wire"]),
            ("turnwire_stop_reason", point.attributes["turnwire.stop_reason"]),
        }
        assert prom[("turnwire_turns_total", frozenset(labels))] == point.value
    assert {p.attributes["turnwire.wire"] for p in turns} == {"agenta"}

    [duration] = receiver.latest("gen_ai.server.request.duration")
    assert duration.kind == "histogram" and duration.unit == "s"
    assert duration.attributes == {"gen_ai.agent.name": "demo", "turnwire.wire": "agenta", "error.type": ""}
    labels = frozenset({("gen_ai_agent_name", "demo"), ("turnwire_wire", "agenta"), ("error_type", "")})
    assert duration.count == 3 == prom[("gen_ai_server_request_duration_seconds_count", labels)]
    assert duration.value == pytest.approx(prom[("gen_ai_server_request_duration_seconds_sum", labels)])
    # The same bounds; OTLP counts per bucket where Prometheus counts up to each bound.
    cumulative = [
        prom[("gen_ai_server_request_duration_seconds_bucket", labels | {("le", str(float(bound)))})]
        for bound in duration.bounds
    ]
    running = [sum(duration.bucket_counts[: i + 1]) for i in range(len(duration.bounds))]
    assert running == cumulative and len(duration.bucket_counts) == len(duration.bounds) + 1
    assert (
        sum(duration.bucket_counts)
        == prom[("gen_ai_server_request_duration_seconds_bucket", labels | {("le", "+Inf")})]
    )
    assert duration.bounds[:3] == [0.01, 0.02, 0.04]

    tokens = {p.attributes["gen_ai.token.type"]: p for p in receiver.latest("gen_ai.client.token.usage")}
    assert set(tokens) == {"input", "output"} and tokens["output"].unit == "{token}"
    for kind, point in tokens.items():
        token_labels = frozenset(
            {("gen_ai_agent_name", "demo"), ("turnwire_wire", "agenta"), ("gen_ai_token_type", kind)}
        )
        assert point.value == prom[("gen_ai_client_token_usage_sum", token_labels)]

    [live] = receiver.latest("turnwire.live_turns")
    assert live.kind == "sum" and not live.monotonic and live.value == 0
    routes = {p.attributes["http.route"] for p in receiver.latest("http.server.request.duration")}
    assert "/invoke" in routes
    assert duration.resource["service.name"] == "turnwire-metrics"


def test_pushed_only_the_metrics_are_measured_but_not_served(tmp_path: Path) -> None:
    with otlp_receiver() as receiver, pytest.MonkeyPatch.context() as env:
        app = _app(tmp_path, receiver, metrics=False, env=env)
        try:
            with serve_app(app) as url:
                _invoke(url, "only-pushed", "hello")
                assert httpx.get(url + "/metrics").status_code == 404
                receiver.wait_for(lambda _: receiver.latest("turnwire.turns"), timeout=10)
        finally:
            app.state.turnwire.observe.shutdown()
    [turn] = receiver.latest("turnwire.turns")
    assert turn.value == 1 and turn.attributes["turnwire.stop_reason"] == "end_turn"
