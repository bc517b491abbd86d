"""The Responses encoder: which item a call becomes, statuses, and the stream's invariants
(contiguous sequence numbers, every added item done once, the final object = the last event's)."""

from __future__ import annotations

from typing import Any

from turnwire.formats import encode_stream
from turnwire.formats.responses import ResponseEncoder, new_response
from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    InteractionKind,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageStart,
    Thought,
    ToolCall,
    ToolResult,
    Usage,
)


def _run(events: list[Event]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    encoder = ResponseEncoder(new_response("resp_" + "a" * 32 + "s1", "agent"), "agent")
    frames = list(encode_stream(events, encoder))
    return frames, encoder.response


def _invariants(frames: list[dict[str, Any]], response: dict[str, Any]) -> None:
    assert [f["sequence_number"] for f in frames] == list(range(len(frames)))
    added = [f["output_index"] for f in frames if f["type"] == "response.output_item.added"]
    done = [f["output_index"] for f in frames if f["type"] == "response.output_item.done"]
    assert added == list(range(len(response["output"]))) and sorted(done) == added
    items_done = {f["output_index"]: f["item"] for f in frames if f["type"] == "response.output_item.done"}
    assert [items_done[i] for i in added] == response["output"]
    assert frames[-1]["response"] == response
    assert frames[0]["type"] == "response.created" and frames[0]["response"]["output"] == []


def test_text_thought_tool_and_usage() -> None:
    frames, response = _run(
        [
            Thought("thinking"),
            ToolCall("c1", "lookup", {"q": 1}),
            ToolResult("c1", output="found"),
            MessageStart("m"),
            MessageDelta("m", "he"),
            MessageDelta("m", "llo"),
            MessageEnd("m"),
            Usage(input=3, output=2),
            Done("end_turn"),
        ]
    )
    _invariants(frames, response)
    assert [i["type"] for i in response["output"]] == ["reasoning", "mcp_call", "message"]
    call = response["output"][1]
    assert (call["server_label"], call["name"], call["arguments"], call["output"]) == (
        "agent",
        "lookup",
        '{"q":1}',
        "found",
    )
    assert response["output"][2]["content"][0]["text"] == "hello"
    assert response["status"] == "completed" and response["usage"]["total_tokens"] == 5
    assert frames[-1]["type"] == "response.completed"


def test_a_call_handed_to_the_client_is_a_function_call_not_an_mcp_call() -> None:
    request = InteractionRequest(
        "r", InteractionKind.CLIENT_TOOL, {"toolCallId": "c2", "toolName": "pick", "input": {"a": 1}}
    )
    frames, response = _run([ToolCall("c2", "pick", {"a": 1}), request, Done("paused")])
    _invariants(frames, response)
    (item,) = response["output"]
    assert item["type"] == "function_call" and item["call_id"] == "c2" and item["arguments"] == '{"a":1}'
    assert response["status"] == "completed"


def test_an_approval_is_an_mcp_approval_request_named_by_its_token() -> None:
    payload = {"toolCallId": "c3", "toolName": "rm", "input": {"p": "x"}}
    request = InteractionRequest("ap_token", InteractionKind.USER_APPROVAL, payload)
    frames, response = _run([ToolCall("c3", "rm", {"p": "x"}), request, Done("paused")])
    _invariants(frames, response)
    (item,) = response["output"]
    assert item == {
        "id": "ap_token",
        "type": "mcp_approval_request",
        "server_label": "agent",
        "name": "rm",
        "arguments": '{"p":"x"}',
    }


def test_a_failed_run_leaves_its_open_call_incomplete_and_fails() -> None:
    frames, response = _run(
        [MessageStart("m"), MessageDelta("m", "par"), ToolCall("c4", "t", {}), ErrorEvent("boom")]
    )
    _invariants(frames, response)
    assert [i["type"] for i in response["output"]] == ["message", "mcp_call"]
    assert response["output"][1]["status"] == "incomplete"
    assert response["status"] == "failed" and response["error"]["message"] == "boom"
    assert frames[-1]["type"] == "response.failed"


def test_an_agent_exception_is_a_failed_response() -> None:
    def events() -> Any:
        yield MessageStart("m")
        raise RuntimeError("exploded")

    encoder = ResponseEncoder(new_response("resp_x", "agent"), "agent")
    frames = list(encode_stream(events(), encoder))
    assert frames[-1]["type"] == "response.failed" and "exploded" in encoder.response["error"]["message"]


def test_stopped_and_cut_turns() -> None:
    _, stopped = _run([MessageStart("m"), MessageDelta("m", "1"), Done("cancelled")])
    assert stopped["status"] == "cancelled"
    frames, cut = _run([MessageStart("m"), MessageDelta("m", "1"), Done("max_tokens")])
    assert cut["status"] == "incomplete" and cut["incomplete_details"] == {"reason": "max_output_tokens"}
    assert frames[-1]["type"] == "response.incomplete"
