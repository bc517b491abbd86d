"""Canonical → UIMessages: roles, ids, one merged tool part per call, file and data parts, batch outputs."""

from __future__ import annotations

from turnwire.formats.vercel import ClientVersion, parse_messages, render_messages, render_outputs
from turnwire.model import (
    UNSET,
    DataBlock,
    ImageBlock,
    InteractionRequest,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Turn,
    UnknownBlock,
)


def one_part(*blocks: object) -> dict:
    (msg,) = render_messages([Message("assistant", list(blocks))])
    (part,) = msg["parts"]
    return part


def test_ids_come_from_message_id_else_position() -> None:
    out = render_messages(
        [Message("user", [TextBlock("a")], id="u1"), Message("assistant", [TextBlock("b")])]
    )
    assert [m["id"] for m in out] == ["u1", "msg-2"]


def test_continuation_id_goes_to_the_last_assistant_even_before_a_trailing_user() -> None:
    msgs = [
        Message("assistant", [TextBlock("a")]),
        Message("assistant", [TextBlock("b")]),
        Message("user", []),
    ]
    out = render_messages(msgs, continuation_id="asst-9")
    assert [m["id"] for m in out] == ["msg-1", "asst-9", "msg-3"]


def test_tool_messages_join_the_preceding_assistant_as_one_part_per_call() -> None:
    out = render_messages(
        [
            Message("assistant", [TextBlock("checking"), ToolCallBlock("c1", "bash", {"cmd": "ls"})]),
            Message("tool", [ToolResultBlock("c1", output="a.txt", is_error=False)]),
        ]
    )
    assert out == [
        {
            "id": "msg-1",
            "role": "assistant",
            "parts": [
                {"type": "text", "text": "checking"},
                {
                    "type": "tool-bash",
                    "toolCallId": "c1",
                    "state": "output-available",
                    "input": {"cmd": "ls"},
                    "output": "a.txt",
                },
            ],
        }
    ]


def test_call_without_result_is_input_available_and_missing_input_is_an_empty_object() -> None:
    assert one_part(ToolCallBlock("c", "t")) == {
        "type": "tool-t",
        "toolCallId": "c",
        "state": "input-available",
        "input": {},
    }


def test_object_and_null_outputs_render_as_output_available() -> None:
    assert one_part(ToolCallBlock("c", "t", {}), ToolResultBlock("c", output=None))["output"] is None
    assert one_part(ToolCallBlock("c", "t", {}), ToolResultBlock("c", output={"a": [1]}))["output"] == {
        "a": [1]
    }
    assert one_part(ToolCallBlock("c", "t", {}), ToolResultBlock("c", output=UNSET))["output"] is None


def test_error_result_renders_output_error_with_text_error_text() -> None:
    part = one_part(ToolCallBlock("c", "t", {}), ToolResultBlock("c", output={"code": 2}, is_error=True))
    assert part["state"] == "output-error"
    assert part["errorText"] == '{"code":2}'
    assert "output" not in part


def test_approval_decisions_render_approval_responded_and_output_denied() -> None:
    yes = one_part(
        ToolCallBlock("c", "t", {}), ToolResultBlock("c", output={"approved": True, "interactionToken": "ap"})
    )
    assert yes["state"] == "approval-responded"
    assert yes["approval"] == {"id": "ap", "approved": True}
    no = one_part(
        ToolCallBlock("c", "t", {}),
        ToolResultBlock("c", output={"approved": False, "interactionToken": "ap", "reason": "nope"}),
    )
    assert no["state"] == "output-denied"
    assert no["approval"] == {"id": "ap", "approved": False, "reason": "nope"}


def test_approved_then_executed_call_keeps_its_approval_and_a_denial_stays_final() -> None:
    ran = one_part(
        ToolCallBlock("c", "t", {}),
        ToolResultBlock("c", output={"approved": True, "interactionToken": "ap"}),
        ToolResultBlock("c", output="done"),
    )
    assert (ran["state"], ran["output"], ran["approval"]["approved"]) == ("output-available", "done", True)
    denied = one_part(
        ToolCallBlock("c", "t", {}),
        ToolResultBlock("c", output={"approved": False}),
        ToolResultBlock("c", output="denied", is_error=True),
    )
    assert denied["state"] == "output-denied"
    assert denied["approval"] == {"id": "c", "approved": False}


def test_tool_name_that_is_not_an_identifier_or_missing_renders_dynamic_tool() -> None:
    assert one_part(ToolCallBlock("c", "Delete file", {}))["type"] == "dynamic-tool"
    assert one_part(ToolCallBlock("c", "Delete file", {}))["toolName"] == "Delete file"
    assert one_part(ToolCallBlock("c", None, {}))["toolName"] == "unknown_tool"


def test_orphan_result_keeps_its_outcome_as_a_tool_part() -> None:
    part = one_part(ToolResultBlock("c", name="lookup", output="x"))
    assert part == {
        "type": "tool-lookup",
        "toolCallId": "c",
        "input": {},
        "state": "output-available",
        "output": "x",
    }


def test_repeated_call_refreshes_input_in_place_and_a_nameless_repeat_keeps_it() -> None:
    part = one_part(
        ToolCallBlock("c", "t", {}), ToolCallBlock("c", "t", {"a": 1}), ToolCallBlock("c", "t", None)
    )
    assert part["input"] == {"a": 1}


def test_roles_map_to_ui_roles_and_unknown_roles_keep_their_name_in_metadata() -> None:
    out = render_messages(
        [
            Message("developer", [TextBlock("d")]),
            Message("tool", [ToolCallBlock("c", "t", {})]),
            Message("critic", [TextBlock("x")]),
        ]
    )
    assert [m["role"] for m in out] == ["system", "assistant", "user"]
    assert out[2]["metadata"] == {"role": "critic"}


def test_empty_non_assistant_message_gets_one_empty_text_part() -> None:
    assert render_messages([Message("user", [])])[0]["parts"] == [{"type": "text", "text": ""}]
    assert render_messages([Message("assistant", [])])[0]["parts"] == []


def test_files_render_with_url_or_data_url_and_a_media_type() -> None:
    msg = render_messages(
        [
            Message(
                "user",
                [
                    ImageBlock(uri="https://x/a.png", mime_type="image/png", filename="a.png"),
                    ResourceBlock(data="QUJD"),
                    ResourceBlock(),
                ],
            )
        ]
    )[0]
    assert msg["parts"] == [
        {"type": "file", "mediaType": "image/png", "url": "https://x/a.png", "filename": "a.png"},
        {
            "type": "file",
            "mediaType": "application/octet-stream",
            "url": "data:application/octet-stream;base64,QUJD",
        },
    ]


def test_reasoning_data_and_known_raw_parts_render_and_other_unknown_blocks_drop() -> None:
    src = {"type": "source-url", "sourceId": "s", "url": "https://x"}
    msg = render_messages(
        [
            Message(
                "assistant",
                [
                    ReasoningBlock("why"),
                    DataBlock({"a": 1}, "weather"),
                    DataBlock(2),
                    UnknownBlock(src),
                    UnknownBlock({"type": "custom-thing"}),
                ],
            )
        ]
    )[0]
    assert msg["parts"] == [
        {"type": "reasoning", "text": "why"},
        {"type": "data-weather", "data": {"a": 1}},
        {"type": "data-data", "data": 2},
        src,
    ]


def test_display_content_and_metadata_ride_in_metadata_and_round_trip() -> None:
    msg = Message("user", [TextBlock("long")], id="u", display_content="short", metadata={"k": 1})
    (ui,) = render_messages([msg])
    assert ui["metadata"] == {"k": 1, "display_content": "short"}
    (back,) = parse_messages([ui])
    assert back.display_content == "short"
    assert back.content == [TextBlock("long")]


def test_every_tool_state_round_trips_through_canonical() -> None:
    parts = [
        {"type": "tool-a", "toolCallId": "1", "state": "input-available", "input": {"x": 1}},
        {
            "type": "tool-a",
            "toolCallId": "2",
            "state": "output-available",
            "input": {},
            "output": {"o": None},
        },
        {"type": "tool-a", "toolCallId": "3", "state": "output-error", "input": {}, "errorText": "bad"},
        {
            "type": "tool-a",
            "toolCallId": "4",
            "state": "output-denied",
            "input": {},
            "approval": {"id": "p4", "approved": False, "reason": "r"},
        },
        {
            "type": "dynamic-tool",
            "toolName": "B c",
            "toolCallId": "5",
            "state": "approval-responded",
            "input": {},
            "approval": {"id": "p5", "approved": True},
        },
    ]
    ui = [{"id": "a1", "role": "assistant", "parts": parts}]
    assert render_messages(parse_messages(ui)) == ui


def test_render_outputs_carries_stop_reason_and_pending_interaction_in_agenta_shape() -> None:
    request = InteractionRequest(
        "perm_1",
        "user_approval",
        {"toolCallId": "c1", "toolCall": {"title": "Delete file", "resolvedName": "rm"}},
    )
    turn = Turn([Message("assistant", [ToolCallBlock("c1", "rm", {})])], "paused", request)
    out = render_outputs(turn, continuation_id="asst-1")
    assert out["messages"][0]["id"] == "asst-1"
    assert out["stop_reason"] == "paused"
    assert out["pending_interaction"] == {
        "type": "interaction_request",
        "id": "perm_1",
        "kind": "user_approval",
        "payload": request.payload,
        "tool": "rm",
    }


def test_render_outputs_omits_absent_stop_reason_and_interaction() -> None:
    assert render_outputs(Turn()) == {"messages": []}


def test_a_paused_batch_turn_renders_its_gate_approval_requested_with_the_id_to_answer() -> None:
    request = InteractionRequest("ap_1", "user_approval", {"toolCallId": "c1", "toolName": "rm"})
    turn = Turn([Message("tool", [ToolCallBlock("c1", "rm", {"path": "x"})])], "paused", request)
    (message,) = render_outputs(turn)["messages"]
    step, part = message["parts"]
    assert step == {"type": "step-start"}
    assert part["state"] == "approval-requested"
    assert part["approval"] == {"id": "ap_1"}
    assert part["input"] == {"path": "x"}


def test_two_gates_pending_in_one_turn_each_get_their_own_approval_id() -> None:
    gates = [
        InteractionRequest("ap_a", "user_approval", {"toolCallId": "a"}),
        InteractionRequest("ap_b", "user_approval", {"toolCallId": "b"}),
    ]
    calls = [Message("tool", [ToolCallBlock("a", "rm", {})]), Message("tool", [ToolCallBlock("b", "rm", {})])]
    turn = Turn(calls, "paused", gates[-1])
    (message,) = render_outputs(turn, pending=gates)["messages"]
    assert [(p["toolCallId"], p["approval"]["id"]) for p in message["parts"][1:]] == [
        ("a", "ap_a"),
        ("b", "ap_b"),
    ]


def test_an_answered_call_is_never_marked_approval_requested() -> None:
    msgs = [
        Message("tool", [ToolCallBlock("c1", "rm", {})]),
        Message("tool", [ToolResultBlock("c1", output={"approved": False, "interactionToken": "ap_1"})]),
    ]
    (message,) = render_messages(msgs, approvals={"c1": "ap_1"})
    assert message["parts"][0]["state"] == "output-denied"


def test_for_ai_sdk_5_tool_parts_use_only_the_states_it_knows() -> None:
    msgs = [
        Message(
            "assistant",
            [
                ToolCallBlock("wait", "rm", {}),
                ToolCallBlock("yes", "rm", {}),
                ToolCallBlock("no", "rm", {}),
                ToolCallBlock("ran", "rm", {}),
            ],
        ),
        Message("tool", [ToolResultBlock("yes", output={"approved": True, "interactionToken": "t"})]),
        Message("tool", [ToolResultBlock("no", output={"approved": False, "interactionToken": "t2"})]),
        Message("tool", [ToolResultBlock("ran", output={"approved": True, "interactionToken": "t3"})]),
        Message("tool", [ToolResultBlock("ran", output="done")]),
    ]
    (message,) = render_messages(msgs, approvals={"wait": "ap"}, client_version=ClientVersion.V5)
    parts = {p["toolCallId"]: p for p in message["parts"]}
    assert parts["wait"] == {"type": "tool-rm", "toolCallId": "wait", "state": "input-available", "input": {}}
    assert parts["yes"]["state"] == "input-available" and "approval" not in parts["yes"]
    assert parts["no"]["state"] == "output-error"
    assert parts["no"]["errorText"] == "Tool call execution denied."
    assert parts["ran"]["state"] == "output-available" and "approval" not in parts["ran"]


def test_a_batch_turn_is_one_assistant_message_as_the_stream_assembles_it() -> None:
    turn = Turn(
        [
            Message("assistant", [TextBlock("Looking.")]),
            Message("tool", [ToolCallBlock("c1", "lookup", {"q": "x"})]),
            Message("tool", [ToolResultBlock("c1", output="found", is_error=False)]),
            Message("assistant", [TextBlock("Found it.")]),
        ],
        "end_turn",
    )
    (message,) = render_outputs(turn, message_id="msg-t1")["messages"]
    assert message["id"] == "msg-t1" and message["role"] == "assistant"
    # New output after a tool result opens a step, as the stream does.
    kinds = [p["type"] for p in message["parts"]]
    assert kinds == ["step-start", "text", "tool-lookup", "step-start", "text"]
    assert message["parts"][2]["state"] == "output-available"


def test_a_resumed_call_keeps_its_input_and_decision_from_the_history() -> None:
    history = [
        Message("user", [TextBlock("delete x")]),
        Message("tool", [ToolCallBlock("c1", "delete_file", {"path": "x"})]),
        Message("tool", [ToolResultBlock("c1", output={"approved": True, "interactionToken": "ap_1"})]),
        Message("tool", [ToolCallBlock("other", "lookup", {})]),  # not resumed: stays out
    ]
    turn = Turn(
        [
            Message("tool", [ToolResultBlock("c1", output="x deleted", is_error=None)]),
            Message("assistant", [TextBlock("Deleted x.")]),
        ],
        "end_turn",
    )
    (message,) = render_outputs(turn, continuation_id="asst-1", message_id="msg-t", history=history)[
        "messages"
    ]
    assert message["id"] == "asst-1"
    # The resumed call's result precedes the turn's step, as the stream sends it.
    tool, step, text = message["parts"]
    assert step == {"type": "step-start"}
    assert tool["toolCallId"] == "c1" and tool["input"] == {"path": "x"}
    assert tool["state"] == "output-available" and tool["output"] == "x deleted"
    assert tool["approval"] == {"id": "ap_1", "approved": True}
    assert text == {"type": "text", "text": "Deleted x."}
