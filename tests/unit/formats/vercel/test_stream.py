"""Events → UI Message Stream chunks: order, terminators, tools, approvals, gate, versions, SSE bytes."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from turnwire.formats.vercel import (
    NO_OUTPUT_TEXT,
    STREAM_HEADERS,
    ClientVersion,
    UIStreamEncoder,
    encode_sse,
    stream_sse,
)
from turnwire.formats.vercel.stream import unwrap_tool_input
from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    Thought,
    ThoughtDelta,
    ToolCall,
    ToolResult,
    Usage,
)


def run(events: list[Event], stop: str | None = None, **kw: Any) -> list[dict[str, Any]]:
    enc = UIStreamEncoder("msg-1", **kw)
    out = enc.start()
    for event in events:
        out += enc.encode(event)
    return out + enc.finish(stop)


def types(chunks: list[dict[str, Any]]) -> list[str]:
    return [c["type"] for c in chunks]


def body(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The chunks between the first start-step and the last finish-step."""
    return chunks[2 : len(chunks) - 1 - types(chunks)[::-1].index("finish-step")]


def test_plain_text_turn_has_the_exact_chunk_order() -> None:
    out = run(
        [MessageStart("m"), MessageDelta("m", "Hel"), MessageDelta("m", "lo"), MessageEnd("m")], "end_turn"
    )
    assert out == [
        {"type": "start", "messageId": "msg-1"},
        {"type": "start-step"},
        {"type": "text-start", "id": "m"},
        {"type": "text-delta", "id": "m", "delta": "Hel"},
        {"type": "text-delta", "id": "m", "delta": "lo"},
        {"type": "text-end", "id": "m"},
        {"type": "finish-step"},
        {"type": "finish", "finishReason": "stop"},
    ]


def test_start_carries_session_id_and_omits_message_id_when_unknown() -> None:
    assert UIStreamEncoder(None, "s1").start()[0] == {"type": "start", "messageMetadata": {"sessionId": "s1"}}


def test_one_shot_message_gets_start_delta_and_end_with_generated_ids() -> None:
    assert body(run([MessageEvent("a"), MessageEvent("b")])) == [
        {"type": "text-start", "id": "text-1"},
        {"type": "text-delta", "id": "text-1", "delta": "a"},
        {"type": "text-end", "id": "text-1"},
        {"type": "text-start", "id": "text-2"},
        {"type": "text-delta", "id": "text-2", "delta": "b"},
        {"type": "text-end", "id": "text-2"},
    ]


def test_delta_for_an_unopened_id_opens_it_first_and_end_for_an_unopened_id_is_dropped() -> None:
    assert body(run([MessageDelta("x", "hi"), MessageEnd("x"), MessageEnd("x")])) == [
        {"type": "text-start", "id": "x"},
        {"type": "text-delta", "id": "x", "delta": "hi"},
        {"type": "text-end", "id": "x"},
    ]


def test_open_text_and_reasoning_are_closed_before_finish_step() -> None:
    out = run([MessageDelta("t", "a"), ThoughtDelta("r", "b")])
    i = types(out).index("finish-step")
    assert set(types(out[i - 2 : i])) == {"text-end", "reasoning-end"}


def test_thoughts_become_reasoning_chunks_and_count_as_output() -> None:
    out = run([Thought("hmm")], "end_turn")
    assert types(body(out)) == ["reasoning-start", "reasoning-delta", "reasoning-end"]
    assert "error" not in types(out)


def test_tool_input_start_once_per_call_and_available_on_every_refresh_with_first_name() -> None:
    out = body(run([ToolCall("c", "Get", {}), ToolCall("c", "get", raw_input={"q": 1}, input={"q": 0})]))
    assert out == [
        {"type": "tool-input-start", "toolCallId": "c", "toolName": "Get"},
        {"type": "tool-input-available", "toolCallId": "c", "toolName": "Get", "input": {}},
        {"type": "tool-input-available", "toolCallId": "c", "toolName": "Get", "input": {"q": 1}},
    ]


def test_tool_result_output_prefers_data_and_error_and_denied_have_exact_keys() -> None:
    out = body(
        run(
            [
                ToolCall("a", "t", {}),
                ToolCall("b", "t", {}),
                ToolCall("c", "t", {}),
                ToolResult("a", output="text", data={"s": 1}),
                ToolResult("b", output={"e": 1}, is_error=True),
                ToolResult("c", output="x", is_error=True, denied=True),
            ]
        )
    )
    assert out[-3:] == [
        {"type": "tool-output-available", "toolCallId": "a", "output": {"s": 1}},
        {"type": "tool-output-error", "toolCallId": "b", "errorText": '{"e":1}'},
        {"type": "tool-output-denied", "toolCallId": "c"},
    ]


def test_orphan_results_are_dropped_but_results_for_history_calls_are_sent() -> None:
    out = run([ToolResult("ghost", output=1), ToolResult("old", output=2)], known_tool_call_ids=["old"])
    assert out[1:3] == [
        {"type": "tool-output-available", "toolCallId": "old", "output": 2},
        {"type": "start-step"},
    ]
    assert "ghost" not in orjson.dumps(out).decode()


def test_approved_continuation_sends_the_output_before_the_step_like_the_sdk() -> None:
    out = run([ToolResult("c1", output="ok"), MessageEvent("Done.")], "end_turn", known_tool_call_ids=["c1"])
    assert types(out) == [
        "start", "tool-output-available", "start-step", "text-start", "text-delta", "text-end",
        "finish-step", "finish",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("version", "output_type"),
    [(ClientVersion.DEFAULT, "tool-output-denied"), (ClientVersion.V5, "tool-output-error")],
)
def test_denied_continuation_sends_the_denial_before_the_step(
    version: ClientVersion, output_type: str
) -> None:
    events: list[Event] = [
        Usage(input=1),
        ToolResult("c1", output="no", is_error=True, denied=True),
        MessageStart("m"),
        MessageDelta("m", "Not done."),
        MessageEnd("m"),
    ]
    out = run(events, "end_turn", client_version=version, known_tool_call_ids=["c1"])
    assert types(out)[:4] == ["start", output_type, "start-step", "text-start"]
    assert types(out).count("start-step") == 1


def test_several_resumed_outputs_all_precede_the_one_step() -> None:
    events: list[Event] = [ToolResult("a", output=1), ToolResult("b", output=2), MessageEvent("x")]
    out = run(events, known_tool_call_ids=["a", "b"])
    assert types(out)[:5] == [
        "start", "tool-output-available", "tool-output-available", "start-step", "text-start"
    ]  # fmt: skip


def test_new_calls_in_a_continuation_still_open_the_step_first() -> None:
    events: list[Event] = [ToolCall("new", "t", {}), ToolResult("new", output=1), ToolResult("old", output=2)]
    out = run(events, known_tool_call_ids=["old"])
    assert types(out) == [
        "start", "start-step", "tool-input-start", "tool-input-available", "tool-output-available",
        "tool-output-available", "finish-step", "finish",
    ]  # fmt: skip


def test_history_call_re_announced_in_this_turn_gets_its_output_inside_the_step() -> None:
    out = run([ToolCall("old", "t", {"a": 1}), ToolResult("old", output=1)], known_tool_call_ids=["old"])
    assert types(out) == [
        "start", "start-step", "tool-input-available", "tool-output-available", "finish-step", "finish",
    ]  # fmt: skip


def test_continuation_without_results_opens_the_step_at_the_first_content() -> None:
    out = run([Usage(input=1), Done("end_turn"), MessageEvent("hi")], known_tool_call_ids=["old"])
    assert types(out)[:3] == ["start", "start-step", "text-start"]


def test_continuation_of_only_outputs_still_pairs_start_step_and_finish_step() -> None:
    out = run([ToolResult("old", output=1)], "end_turn", known_tool_call_ids=["old"])
    assert types(out) == ["start", "tool-output-available", "start-step", "finish-step", "finish"]
    silent = run([], "end_turn", known_tool_call_ids=["old"])
    assert types(silent) == ["start", "start-step", "finish-step", "data-agent-error", "error", "finish"]


def test_call_known_from_history_gets_no_second_tool_input_start() -> None:
    assert types(body(run([ToolCall("old", "t", {"a": 1})], known_tool_call_ids=["old"]))) == [
        "tool-input-available"
    ]


def test_content_after_tool_outputs_opens_a_new_step() -> None:
    out = run([MessageDelta("m", "a"), ToolCall("c", "t", {}), ToolResult("c", output=1), MessageEvent("b")])
    assert types(out) == [
        "start", "start-step", "text-start", "text-delta", "tool-input-start", "tool-input-available",
        "tool-output-available", "text-end", "finish-step", "start-step", "text-start", "text-delta",
        "text-end", "finish-step", "finish",
    ]  # fmt: skip


def test_render_becomes_data_render() -> None:
    out = body(run([ToolCall("c", "t", {}, render={"k": 1})]))
    assert out[-1] == {"type": "data-render", "data": {"toolCallId": "c", "render": {"k": 1}}}


def test_gate_drops_tool_chunks_without_call_id_and_names_nameless_tools() -> None:
    out = body(run([ToolCall(None, "t", {}), ToolResult(None, output=1), ToolCall("c", "", {})]))
    assert [c.get("toolName") for c in out] == ["unknown_tool", "unknown_tool"]


def test_mcp_wrapped_arguments_are_unwrapped_but_real_arguments_stay() -> None:
    assert unwrap_tool_input({"tool": "ls", "server": "fs", "arguments": {"p": 1}}) == {"p": 1}
    kept = {"integration": "x", "tool": "y", "arguments": {"p": 1}}
    assert unwrap_tool_input(kept) == kept
    assert unwrap_tool_input({"tool": 5, "arguments": {}}) == {"tool": 5, "arguments": {}}


def _approval(**payload: Any) -> InteractionRequest:
    return InteractionRequest("perm_1", "user_approval", payload)


def test_approval_for_an_unseen_call_synthesises_the_call_then_requests_approval() -> None:
    req = _approval(
        toolCallId="c1", toolCall={"title": "Delete file", "resolvedName": "rm", "rawInput": {"p": 1}}
    )
    assert body(run([req], "paused")) == [
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "rm"},
        {"type": "tool-input-available", "toolCallId": "c1", "toolName": "rm", "input": {"p": 1}},
        {"type": "tool-approval-request", "approvalId": "perm_1", "toolCallId": "c1"},
    ]


def test_approval_for_a_seen_call_refreshes_only_with_real_input_and_upgrades_the_name() -> None:
    seen = ToolCall("c1", "Delete file", {})
    with_input = _approval(toolCallId="c1", toolCall={"resolvedName": "rm", "rawInput": {"p": 1}})
    assert body(run([seen, with_input]))[2:] == [
        {"type": "tool-input-available", "toolCallId": "c1", "toolName": "rm", "input": {"p": 1}},
        {"type": "tool-approval-request", "approvalId": "perm_1", "toolCallId": "c1"},
    ]
    without = _approval(toolCallId="c1", toolCall={"resolvedName": "rm", "rawInput": {}})
    assert types(body(run([seen, without]))[2:]) == ["tool-approval-request"]


def test_approval_without_tool_call_id_sends_no_tool_chunks() -> None:
    assert types(body(run([_approval(toolCall={"title": "x"})]))) == ["data-interaction"]


def test_approval_manifest_comes_before_the_approval_request() -> None:
    out = body(run([_approval(toolCallId="c", manifest={"files": 1})]))
    assert out[-2] == {
        "type": "data-approval-manifest",
        "id": "c",
        "data": {"toolCallId": "c", "approvalId": "perm_1", "manifest": {"files": 1}},
    }


def test_v5_gets_no_approval_chunks_and_a_denial_as_a_tool_error() -> None:
    req = _approval(toolCallId="c1", toolName="rm", input={"p": 1})
    out = body(run([req, ToolResult("c1", output="", denied=True)], client_version=ClientVersion.V5))
    assert "tool-approval-request" not in types(out)
    assert out[2] == {
        "type": "data-interaction",
        "id": "perm_1",
        "data": {"kind": "user_approval", "payload": req.payload},
    }
    assert out[3] == {
        "type": "tool-output-error",
        "toolCallId": "c1",
        "errorText": "Tool call execution denied.",
    }


def test_user_input_client_tool_and_unknown_interactions() -> None:
    out = body(
        run(
            [
                InteractionRequest("i1", "user_input", {"q": "?"}),
                InteractionRequest(
                    "i2", "client_tool", {"toolCallId": "c", "toolName": "pick", "render": {"k": 1}}
                ),
                InteractionRequest("i3", "new_kind", [1]),
                InteractionResponse("i1", "user_input", "yes"),
            ]
        )
    )
    assert out == [
        {"type": "data-input-request", "id": "i1", "data": {"q": "?"}},
        {"type": "tool-input-start", "toolCallId": "c", "toolName": "pick"},
        {"type": "tool-input-available", "toolCallId": "c", "toolName": "pick", "input": {}},
        {"type": "data-render", "data": {"toolCallId": "c", "render": {"k": 1}}},
        {"type": "data-interaction", "id": "i3", "data": {"kind": "new_kind", "payload": [1]}},
    ]


def test_data_and_file_events_and_the_file_gate() -> None:
    out = body(
        run(
            [
                DataEvent("progress", {"p": 1}),
                DataEvent(None, 2, transient=True),
                FileEvent("https://x/a.png", "image/png"),
                FileEvent("", "image/png"),
                FileEvent("https://x", ""),
            ]
        )
    )
    assert out == [
        {"type": "data-progress", "data": {"p": 1}},
        {"type": "data-data", "data": 2, "transient": True},
        {"type": "file", "url": "https://x/a.png", "mediaType": "image/png"},
    ]


def test_usage_last_wins_and_finish_metadata_carries_usage_and_trace_id() -> None:
    out = run([MessageEvent("x"), Usage(1, 2, 3, 0.5), Usage(input=4), Done("end_turn", "tr")])
    assert out[-1] == {
        "type": "finish",
        "finishReason": "stop",
        "messageMetadata": {"usage": {"input": 4}, "traceId": "tr"},
    }


def test_finish_has_no_metadata_without_usage_or_trace_and_no_reason_without_stop_reason() -> None:
    assert run([MessageEvent("x")])[-1] == {"type": "finish"}


def test_terminal_stop_reason_beats_done_and_last_non_null_done_wins() -> None:
    assert run([MessageEvent("x"), Done("max_tokens"), Done(None)])[-1]["finishReason"] == "length"
    assert run([MessageEvent("x"), Done("max_tokens")], "paused")[-1]["finishReason"] == "other"


def test_no_output_turn_gets_the_error_pair_after_finish_step() -> None:
    out = run([], "end_turn")
    assert types(out) == ["start", "start-step", "finish-step", "data-agent-error", "error", "finish"]
    assert out[4] == {"type": "error", "errorText": NO_OUTPUT_TEXT}
    assert out[3]["data"] == {"code": "no_output", "errorText": NO_OUTPUT_TEXT}


def test_no_no_output_error_when_cancelled_or_after_an_error() -> None:
    assert "error" not in types(run([], "cancelled"))
    assert types(run([ErrorEvent("bad")])).count("error") == 1


def test_agent_error_event_gives_the_pair_with_a_slug_code() -> None:
    out = body(run([ErrorEvent("x", code="Not A Slug", detail={"code": "quota_exceeded"})]))
    detail = {"code": "quota_exceeded"}
    assert out == [
        {
            "type": "data-agent-error",
            "data": {"code": "quota_exceeded", "errorText": "x", "errorDetail": detail},
        },
        {"type": "error", "errorText": "x"},
    ]
    assert (
        body(run([ErrorEvent("x", code="rate_limited", detail={"code": "other"})]))[0]["data"]["code"]
        == "rate_limited"
    )


def test_failure_closes_open_text_then_error_pair_before_finish_step() -> None:
    enc = UIStreamEncoder("m")
    out = enc.start() + enc.encode(MessageDelta("t", "Hel")) + enc.finish(error="Agent run failed: boom")
    assert types(out)[4:] == ["text-end", "data-agent-error", "error", "finish-step", "finish"]
    assert out[-1] == {"type": "finish", "finishReason": "error"}


def test_failure_after_a_live_error_adds_no_second_pair() -> None:
    enc = UIStreamEncoder("m")
    out = enc.start() + enc.encode(ErrorEvent("live")) + enc.finish(error="again")
    assert types(out).count("error") == 1


def test_finish_is_idempotent_and_events_after_finish_are_ignored() -> None:
    enc = UIStreamEncoder("m")
    first = enc.finish("end_turn")
    assert types(first)[:2] == ["start", "start-step"]
    assert enc.finish() == []
    assert enc.encode(MessageEvent("late")) == []


def test_encode_before_start_starts_the_turn() -> None:
    assert types(UIStreamEncoder("m").encode(MessageEvent("x")))[:2] == ["start", "start-step"]


def test_stream_sse_ends_with_done_and_closes_the_turn_after_an_exception() -> None:
    def events():
        yield MessageDelta("m", "Hel")
        raise RuntimeError("provider exploded\ntraceback line")

    raw = b"".join(stream_sse(events(), UIStreamEncoder("m")))
    assert raw.endswith(b'data: {"type":"finish","finishReason":"error"}\n\ndata: [DONE]\n\n')
    frames = [orjson.loads(f[6:]) for f in raw.split(b"\n\n") if f and f != b"data: [DONE]"]
    assert {"type": "error", "errorText": "Agent run failed: provider exploded"} in frames


def test_sse_frames_are_unescaped_utf8_and_survive_newlines() -> None:
    raw = encode_sse([{"type": "text-delta", "id": "t", "delta": "é👋世\nx"}], done=True)
    assert raw == 'data: {"type":"text-delta","id":"t","delta":"é👋世\\nx"}\n\ndata: [DONE]\n\n'.encode()


def test_empty_event_stream_still_sends_done() -> None:
    assert b"".join(stream_sse([], UIStreamEncoder())).endswith(b"data: [DONE]\n\n")


def test_stream_headers_are_the_protocol_headers() -> None:
    assert STREAM_HEADERS == {
        "x-vercel-ai-ui-message-stream": "v1",
        "x-ag-messages-format": "vercel",
        "x-ag-messages-version": "v1",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
    }


@pytest.mark.parametrize("version", list(ClientVersion))
def test_no_chunk_has_an_unknown_type(version: ClientVersion) -> None:
    known = {
        "start", "start-step", "finish-step", "finish", "text-start", "text-delta", "text-end",
        "reasoning-start", "reasoning-delta", "reasoning-end", "tool-input-start", "tool-input-available",
        "tool-output-available", "tool-output-error", "tool-output-denied", "tool-approval-request",
        "file", "error",
    }  # fmt: skip
    events = [
        MessageEvent("a"), Thought("b"), ToolCall("c", "t", {}), ToolResult("c", output=1),
        _approval(toolCallId="d", toolName="x"), ToolResult("d", denied=True), DataEvent("n", 1),
        FileEvent("u", "m/t"), ErrorEvent("e"), InteractionRequest("i", "user_input"),
    ]  # fmt: skip
    for chunk in run(events, "end_turn", client_version=version):
        assert chunk["type"] in known or chunk["type"].startswith("data-")


def test_a_stopped_turn_says_abort_before_finish_with_its_reason_for_v7_only() -> None:
    # The AI SDK's own streams end a stop with ``abort`` (reason: a v7 key; v5/v6 refuse it).
    v7 = run([MessageEvent("partial")], "cancelled", client_version=ClientVersion.V7)
    assert types(v7)[-3:] == ["finish-step", "abort", "finish"]
    assert v7[-2] == {"type": "abort", "reason": "The turn was stopped."}
    for version in (ClientVersion.DEFAULT, ClientVersion.V6, ClientVersion.V5):
        out = run([MessageEvent("partial")], "cancelled", client_version=version)
        assert out[-2] == {"type": "abort"}
    assert "abort" not in types(run([MessageEvent("done")], "end_turn"))


AUTO = InteractionResponse(
    "auto-1", "user_approval", {"toolCallId": "c", "approved": False, "reason": "policy"}
)


def test_a_decision_without_the_user_is_an_automatic_request_answered_at_once_for_ai_7() -> None:
    out = body(run([ToolCall("c", "rm", {}), AUTO], client_version=ClientVersion.V7))
    assert out[-2:] == [
        {"type": "tool-approval-request", "approvalId": "auto-1", "toolCallId": "c", "isAutomatic": True},
        {"type": "tool-approval-response", "approvalId": "auto-1", "approved": False, "reason": "policy"},
    ]


@pytest.mark.parametrize("version", [ClientVersion.DEFAULT, ClientVersion.V6, ClientVersion.V5])
def test_older_clients_get_no_chunk_for_a_decision(version: ClientVersion) -> None:
    assert types(body(run([ToolCall("c", "rm", {}), AUTO], client_version=version))) == [
        "tool-input-start",
        "tool-input-available",
    ]


def test_a_decision_for_a_call_the_client_does_not_hold_or_of_another_kind_sends_nothing() -> None:
    unknown = InteractionResponse("a", "user_approval", {"toolCallId": "elsewhere", "approved": True})
    undecided = InteractionResponse("b", "user_approval", {"toolCallId": "c", "approved": "yes"})
    answer = InteractionResponse("i", "user_input", {"toolCallId": "c", "approved": True})
    events: list[Event] = [ToolCall("c", "rm", {}), unknown, undecided, answer]
    assert "tool-approval-request" not in types(run(events, client_version=ClientVersion.V7))


def test_ai_7_approval_requests_carry_the_signed_token_as_signature_older_ones_do_not() -> None:
    request = InteractionRequest("ap_token", "user_approval", {"toolCallId": "c", "toolName": "rm"})
    v7 = [
        c
        for c in run([request], "paused", client_version=ClientVersion.V7)
        if c["type"] == "tool-approval-request"
    ]
    assert v7 == [
        {
            "type": "tool-approval-request",
            "approvalId": "ap_token",
            "toolCallId": "c",
            "signature": "ap_token",
        }
    ]
    for version in (ClientVersion.DEFAULT, ClientVersion.V6):
        (chunk,) = [
            c
            for c in run([request], "paused", client_version=version)
            if c["type"] == "tool-approval-request"
        ]
        assert "signature" not in chunk


def test_a_file_from_the_reasoning_is_a_reasoning_file_for_ai_7_and_a_file_before() -> None:
    event = FileEvent("https://x/a.png", "image/png", reasoning=True)
    assert body(run([event], client_version=ClientVersion.V7)) == [
        {"type": "reasoning-file", "url": "https://x/a.png", "mediaType": "image/png"}
    ]
    for version in (ClientVersion.DEFAULT, ClientVersion.V6, ClientVersion.V5):
        assert types(body(run([event], client_version=version))) == ["file"]
