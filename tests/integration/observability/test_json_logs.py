"""``--log-format json``: a failed turn's WARNING is one JSON line naming its request, trace,
span and session — the ids its response carries."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson
import pytest

from conftest import Traced
from services import serve_app
from turnwire.agents import demo_agent
from turnwire.observability.json_logs import JsonFormatter
from turnwire.server import Settings, create_app
from turnwire.server.run import ServeOptions, uvicorn_config


@pytest.fixture
def lines() -> Iterator[io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("turnwire.server.turns")
    logger.addHandler(handler)
    try:
        yield out
    finally:
        logger.removeHandler(handler)


def _fail(url: str, session: str) -> httpx.Response:
    body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": "fail"}]}}}
    headers = {
        "x-request-id": f"req-{session}",
        "content-type": "application/json",
        "accept": "text/event-stream",
    }
    response = httpx.post(url + "/invoke", content=orjson.dumps(body), headers=headers, timeout=10)
    assert response.status_code == 200
    return response


def _the_line(out: io.StringIO) -> dict[str, str]:
    [line] = [orjson.loads(raw) for raw in out.getvalue().splitlines() if "turn failed" in raw]
    return line  # type: ignore[no-any-return]


def test_a_traced_failure_logs_one_json_line_with_its_ids(traced: Traced, lines: io.StringIO) -> None:
    response = _fail(traced.url, "json-traced")
    line = _the_line(lines)
    assert line["level"] == "WARNING"
    assert line["logger"] == "turnwire.server.turns"
    assert line["message"].startswith("turn failed: ")
    assert line["time"].endswith("+00:00")
    assert line["request_id"] == "req-json-traced" == response.headers["x-request-id"]
    _, trace_id, span_id, _ = response.headers["traceparent"].split("-")
    assert line["trace_id"] == trace_id == response.headers["x-ag-trace-id"]
    assert line["span_id"] == span_id
    assert line["session"] == "json-traced"


def test_json_logs_name_the_wire_trace_id_with_tracing_off(tmp_path: Path, lines: io.StringIO) -> None:
    settings = Settings(log_format="json", db_url=f"sqlite:///{tmp_path / 's.db'}")
    app = create_app({"demo": demo_agent}, settings=settings)
    observe = app.state.turnwire.observe
    assert observe is not None and observe.tracer is None and observe.metrics is None
    with serve_app(app, lifespan="off") as url:
        response = _fail(url, "json-plain")
    line = _the_line(lines)
    assert "traceparent" not in response.headers
    assert line["trace_id"] == response.headers["x-ag-trace-id"]
    assert line["session"] == "json-plain" and line["request_id"] == "req-json-plain"
    assert "span_id" not in line


def test_serve_with_json_logs_gives_uvicorn_json_lines_too() -> None:
    config = uvicorn_config(ServeOptions(settings=Settings(log_format="json")))
    formatter = config.log_config["formatters"]["json"]["()"]
    assert formatter == "turnwire.observability.json_logs.JsonFormatter"
    record = logging.makeLogRecord(
        {"name": "uvicorn.access", "levelname": "INFO", "msg": "GET / %d", "args": (200,)}
    )
    assert orjson.loads(JsonFormatter().format(record))["message"] == "GET / 200"
    assert uvicorn_config(ServeOptions()).log_config != config.log_config
