"""An approval round trip is two turn spans: the paused one, and the resumed one linked to it."""

from __future__ import annotations

from typing import Any

import httpx
import orjson
from test_turn_traces import SSE, _sse, _turn_span

from conftest import Traced


def _invoke(traced: Traced, session: str, messages: list[Any]) -> list[dict[str, Any]]:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    response = httpx.post(traced.url + "/invoke", content=orjson.dumps(body), headers=SSE, timeout=10)
    assert response.status_code == 200, response.text
    return _sse(response.content)


def _replay(frames: list[dict[str, Any]]) -> dict[str, Any]:
    """The paused assistant message as the client sends it back, the gated call approved."""
    blocks: list[dict[str, Any]] = []
    for frame in frames:
        data = frame["data"]
        if frame["type"] == "tool_call":
            blocks.append(
                {
                    "type": "tool_call",
                    "toolCallId": data["id"],
                    "toolName": data["name"],
                    "input": data["input"],
                }
            )
        elif frame["type"] == "interaction_request" and data["kind"] == "user_approval":
            output = {"approved": True, "interactionToken": data["id"]}
            blocks.append(
                {"type": "tool_result", "toolCallId": data["payload"]["toolCallId"], "output": output}
            )
    return {"role": "assistant", "content": blocks}


def _done(frames: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = next(f for f in frames if f["type"] == "done")["data"]
    return data


def test_an_approval_round_trip_links_the_resumed_turn_to_the_paused_one(traced: Traced) -> None:
    session = "otel-approval"
    asked = [{"role": "user", "content": "delete notes.txt"}]
    paused_frames = _invoke(traced, session, asked)
    paused_done = _done(paused_frames)
    assert paused_done["stopReason"] == "paused"
    paused, paused_children = _turn_span(traced, paused_done["traceId"])
    assert paused.attributes["turnwire.stop_reason"] == "paused"
    [gated] = paused_children
    assert gated.name == "execute_tool delete_file"
    assert gated.attributes["turnwire.tool.pending"] is True

    resumed_frames = _invoke(traced, session, [*asked, _replay(paused_frames)])
    resumed_done = _done(resumed_frames)
    assert resumed_done["stopReason"] == "end_turn"
    assert resumed_done["traceId"] != paused_done["traceId"]
    resumed, _ = _turn_span(traced, resumed_done["traceId"])
    assert resumed.links == [(paused.trace_id, paused.span_id)]
    assert resumed.attributes["gen_ai.conversation.id"] == session
