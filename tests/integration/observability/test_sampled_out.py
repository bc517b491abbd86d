"""A turn the sampler drops still has its trace id on the wire and answers as usual."""

from __future__ import annotations

import httpx
import pytest
from otlp_receiver import otlp_receiver

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app


def test_a_turn_sampled_out_answers_with_a_trace_id_and_exports_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with otlp_receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/v1/traces")
        monkeypatch.setenv("OTEL_TRACES_SAMPLER", "always_off")
        app = create_app({"demo": demo_agent}, settings=Settings(otel=True))
        try:
            with serve_app(app, lifespan="off") as url:
                body = {"data": {"inputs": {"messages": [{"role": "user", "content": "weather in Paris"}]}}}
                response = httpx.post(url + "/invoke", json=body, timeout=10)
                assert response.status_code == 200, response.text
                _, trace_id, _, flags = response.headers["traceparent"].split("-")
                assert response.headers["x-ag-trace-id"] == trace_id
                assert int(flags, 16) & 1 == 0  # not sampled
                assert response.json()["trace_id"] == trace_id
                outputs = response.json()["data"]["outputs"]
                assert outputs["stop_reason"] == "end_turn"
                assert outputs["messages"][-1]["content"] == "It is sunny and 21 °C in Paris."
        finally:
            observe = app.state.turnwire.observe
            assert observe.flush()
            observe.shutdown()
        assert receiver.spans == []
