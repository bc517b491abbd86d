"""Tracing off costs nothing: no SDK imported, no span exported, no ``traceparent`` answered."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from otlp_receiver import otlp_receiver

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app

_TURN_IN_A_FRESH_INTERPRETER = textwrap.dedent(
    """
    import asyncio, sys
    import httpx
    from turnwire.agents import demo_agent
    from turnwire.server import Settings, create_app

    async def main():
        app = create_app({"demo": demo_agent}, settings=Settings())
        assert app.state.turnwire.observe is None
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            body = {"data": {"inputs": {"messages": [{"role": "user", "content": "weather in Paris"}]}}}
            parent = {"traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01"}
            r = await client.post("/invoke", json=body, headers=parent)
            assert r.status_code == 200, r.text
            assert "traceparent" not in r.headers
            assert r.headers["x-ag-trace-id"] != "1" * 32
            assert (await client.get("/metrics")).status_code == 404

    asyncio.run(main())
    # What the app imports whatever the settings: the switch, the Agentex spans' book and the
    # one-context-variable check of work spans (the turn's tracer), all plain Python importing
    # nothing of OpenTelemetry or Prometheus.
    LIGHT = {"turnwire.observability.switch", "turnwire.observability.span_book",
        "turnwire.observability.work_spans", "turnwire.observability.model_spans"}
    loaded = sorted(m for m in sys.modules if m.startswith(("opentelemetry.sdk", "opentelemetry.exporter",
        "prometheus_client", "turnwire.observability.")) and m not in LIGHT)
    print(loaded)
    """
)


def test_a_turn_with_tracing_off_imports_neither_the_sdk_nor_the_metrics() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "TURNWIRE_"))}
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    done = subprocess.run(
        [sys.executable, "-c", _TURN_IN_A_FRESH_INTERPRETER],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_otel_sdk_disabled_exports_nothing_even_with_an_endpoint(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    with otlp_receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/v1/traces")
        monkeypatch.setenv("OTEL_SDK_DISABLED", "true")
        app = create_app({"demo": demo_agent}, settings=Settings())
        assert app.state.turnwire.observe is None
        with serve_app(app, lifespan="off") as url:
            import httpx

            body = {"data": {"inputs": {"messages": [{"role": "user", "content": "hello"}]}}}
            r = httpx.post(url + "/invoke", json=body, timeout=10)
            assert r.status_code == 200
            assert "traceparent" not in r.headers
        assert receiver.requests == 0 and receiver.spans == []
