"""`turnwire serve --otel --metrics --log-format json`: the flags reach the app it serves — its
turns reach an OTLP receiver, `/metrics` answers, turnwire's log lines are JSON, and its tracer
provider becomes the process's. The command runs in process (typer's runner) up to the point
where it would hand the app to uvicorn; the test serves that app on loopback instead."""

from __future__ import annotations

import io
import logging
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from otlp_receiver import otlp_receiver
from typer.testing import CliRunner

from services import free_port, serve_app
from turnwire.cli import app as cli
from turnwire.observability.json_logs import JsonFormatter


def test_serve_flags_turn_on_traces_metrics_and_json_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed: dict[str, Any] = {}
    installed: list[Any] = []

    def instead_of_uvicorn(options: Any, sock: Any, *, app: Any) -> None:
        sock.close()
        handed["app"] = app

    monkeypatch.setattr("turnwire.server.run.serve", instead_of_uvicorn)
    # The test process keeps its global provider: other tests' libraries would export to this receiver.
    monkeypatch.setattr("turnwire.observability.tracing.install_global", installed.append)
    logger = logging.getLogger("turnwire")
    saved = (logger.level, list(logger.handlers))
    with otlp_receiver() as receiver:
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", receiver.url + "/v1/traces")
        args = ["serve", "--port", str(free_port()), "--db", f"sqlite:///{tmp_path / 's.db'}"]
        result = CliRunner().invoke(cli, [*args, "--otel", "--metrics", "--log-format", "json"])
        try:
            assert result.exit_code == 0, result.output
            app = handed["app"]
            observe = app.state.turnwire.observe
            assert installed == [observe.provider]
            [handler] = logger.handlers
            assert isinstance(handler.formatter, JsonFormatter)
            lines = io.StringIO()
            handler.stream = lines  # type: ignore[attr-defined]  # (the runner closed its stderr)
            with serve_app(app) as url:
                body = {
                    "session_id": "cli",
                    "data": {"inputs": {"messages": [{"role": "user", "content": "fail"}]}},
                }
                r = httpx.post(
                    f"{url}/invoke", json=body, headers={"accept": "text/event-stream"}, timeout=10
                )
                trace_id = r.headers["x-ag-trace-id"]
                assert r.headers["traceparent"].split("-")[1] == trace_id
                metrics = httpx.get(f"{url}/metrics")
                assert metrics.status_code == 200 and "turnwire_turns_total" in metrics.text
            assert observe.flush()
            [span] = [s for s in receiver.trace(trace_id) if not s.name.startswith("store ")]
            assert span.name == "invoke_agent demo" and span.resource["service.name"] == "turnwire"
            observe.shutdown()
        finally:
            logger.setLevel(saved[0])
            logger.handlers[:] = saved[1]
    [failed] = [orjson.loads(line) for line in lines.getvalue().splitlines() if "turn failed" in line]
    assert failed["level"] == "WARNING" and failed["trace_id"] == trace_id and failed["session"] == "cli"
