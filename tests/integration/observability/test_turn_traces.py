"""Every door's turn is one ``invoke_agent`` span with its tool calls as children, exported over
OTLP/HTTP by the real SDK, and the trace id every wire shows is that span's trace id."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import orjson
from conftest import Traced
from otlp_receiver import ReceivedSpan

_ids = itertools.count()
SSE = {"accept": "text/event-stream", "content-type": "application/json"}
JSON = {"content-type": "application/json"}


def _session() -> str:
    return f"otel-{next(_ids)}"


def _turn_span(traced: Traced, trace_id: str) -> tuple[ReceivedSpan, list[ReceivedSpan]]:
    traced.flush()
    spans = traced.receiver.wait_for(
        lambda _: [s for s in traced.receiver.trace(trace_id) if s.name.startswith("invoke_agent")]
    )
    [turn] = spans
    return turn, [s for s in traced.receiver.trace(trace_id) if s.parent_id == turn.span_id]


def _sse(raw: bytes) -> list[Any]:
    return [orjson.loads(line[6:]) for line in raw.split(b"\n") if line.startswith(b"data: {")]


def test_an_agenta_turn_is_one_invoke_agent_span_whose_trace_id_the_wire_shows(traced: Traced) -> None:
    session = _session()
    body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": "weather in Paris"}]}}}
    response = httpx.post(traced.url + "/invoke", content=orjson.dumps(body), headers=SSE, timeout=10)
    assert response.status_code == 200
    frames = _sse(response.content)
    done = next(f for f in frames if f["type"] == "done")
    trace_id = done["data"]["traceId"]
    assert response.headers["x-ag-trace-id"] == trace_id
    turn, children = _turn_span(traced, trace_id)
    assert turn.name == "invoke_agent demo"
    assert turn.parent_id == ""
    assert turn.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert turn.attributes["gen_ai.agent.name"] == "demo"
    assert turn.attributes["gen_ai.conversation.id"] == session
    assert turn.attributes["turnwire.wire"] == "agenta"
    assert turn.attributes["turnwire.stop_reason"] == "end_turn"
    assert turn.attributes["gen_ai.response.finish_reasons"] == ["end_turn"]
    assert turn.resource["service.name"] == "turnwire-test"
    assert turn.resource["deployment.environment"] == "test"
    [tool] = children
    assert tool.name == "execute_tool get_weather"
    assert tool.attributes["gen_ai.tool.name"] == "get_weather"
    assert tool.attributes["gen_ai.tool.call.id"]
    assert "Paris" in tool.attributes["gen_ai.tool.call.arguments"]
    assert tool.start >= turn.start and tool.end <= turn.end
    version, trace, span, flags = response.headers["traceparent"].split("-")
    assert (version, trace, span) == ("00", trace_id, turn.span_id)
    assert int(flags, 16) & 1  # sampled
