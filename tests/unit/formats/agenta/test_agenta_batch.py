"""The batch response body: exact flat shapes of the spec's "Batch response messages" table."""

from __future__ import annotations

from turnwire.formats.agenta import render_outputs
from turnwire.model import (
    DataBlock,
    ImageBlock,
    InteractionRequest,
    Message,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    Turn,
)


def test_assistant_text_is_role_and_string_content():
    turn = Turn([Message("assistant", [TextBlock("Hello")])])
    assert render_outputs(turn) == {"messages": [{"role": "assistant", "content": "Hello"}]}


def test_tool_call_is_the_flat_tool_shape_with_empty_content():
    turn = Turn([Message("tool", [ToolCallBlock("call_1", "bash", {"command": "ls"})])])
    assert render_outputs(turn)["messages"] == [
        {
            "role": "tool",
            "content": "",
            "tool_call_id": "call_1",
            "tool_name": "bash",
            "input": {"command": "ls"},
        }
    ]


def test_tool_result_is_the_flat_tool_shape_with_output_as_content():
    turn = Turn([Message("tool", [ToolResultBlock("call_1", None, "index.md\n", False)])])
    assert render_outputs(turn)["messages"] == [
        {"role": "tool", "content": "index.md\n", "tool_call_id": "call_1", "is_error": False}
    ]


def test_tool_result_unknown_error_flag_is_sent_as_null():
    turn = Turn([Message("tool", [ToolResultBlock("t1", None, "found")])])
    assert render_outputs(turn)["messages"] == [
        {"role": "tool", "content": "found", "tool_call_id": "t1", "is_error": None}
    ]


def test_tool_result_without_output_has_empty_string_content():
    assert render_outputs(Turn([Message("tool", [ToolResultBlock("t1")])]))["messages"][0]["content"] == ""


def test_tool_result_null_output_is_null_content_and_objects_are_kept():
    turn = Turn(
        [
            Message("tool", [ToolResultBlock("a", output=None)]),
            Message("tool", [ToolResultBlock("b", output={"rows": [1]})]),
        ]
    )
    assert [m["content"] for m in render_outputs(turn)["messages"]] == [None, {"rows": [1]}]


def test_id_less_and_name_less_tool_call_keeps_null_keys():
    turn = Turn([Message("tool", [ToolCallBlock()])])
    assert render_outputs(turn)["messages"] == [
        {"role": "tool", "content": "", "tool_call_id": None, "tool_name": None, "input": None}
    ]


def test_message_without_blocks_is_empty_content():
    assert render_outputs(Turn([Message("assistant")]))["messages"] == [{"role": "assistant", "content": ""}]


def test_reasoning_data_and_file_blocks_produce_no_message():
    turn = Turn(
        [
            Message("assistant", [ReasoningBlock("hmm")]),
            Message("assistant", [DataBlock({"a": 1})]),
            Message("assistant", [ImageBlock(uri="https://x/y.png", mime_type="image/png")]),
            Message("assistant", [TextBlock("answer")]),
        ]
    )
    assert render_outputs(turn)["messages"] == [{"role": "assistant", "content": "answer"}]


def test_mixed_message_gives_its_text_then_one_message_per_tool_block():
    turn = Turn([Message("assistant", [TextBlock("a"), ToolCallBlock("c", "t", {}), TextBlock("b")])])
    assert render_outputs(turn)["messages"] == [
        {"role": "assistant", "content": "ab"},
        {"role": "tool", "content": "", "tool_call_id": "c", "tool_name": "t", "input": {}},
    ]


def test_stop_reason_is_present_only_when_set():
    assert render_outputs(Turn([], "end_turn")) == {"messages": [], "stop_reason": "end_turn"}
    assert render_outputs(Turn([])) == {"messages": []}


def test_pending_interaction_carries_type_request_fields_and_tool_from_the_shared_ladder():
    request = InteractionRequest(
        "perm_1",
        "user_approval",
        {
            "toolCallId": "call_1",
            "toolCall": {"toolCallId": "call_1", "title": "Delete file", "resolvedName": "delete_file"},
        },
    )
    outputs = render_outputs(Turn([], "paused", request))
    assert outputs["pending_interaction"] == {
        "type": "interaction_request",
        "id": "perm_1",
        "kind": "user_approval",
        "payload": {
            "toolCallId": "call_1",
            "toolCall": {"toolCallId": "call_1", "title": "Delete file", "resolvedName": "delete_file"},
        },
        "tool": "delete_file",
    }


def test_pending_interaction_tool_prefers_payload_tool_name_and_falls_back_to_kind():
    named = InteractionRequest("i", "client_tool", {"toolName": "pick_color", "toolCall": {"name": "other"}})
    bare = InteractionRequest("j", "user_input")
    assert render_outputs(Turn([], "paused", named))["pending_interaction"]["tool"] == "pick_color"
    assert render_outputs(Turn([], "paused", bare))["pending_interaction"] == {
        "type": "interaction_request",
        "id": "j",
        "kind": "user_input",
        "tool": "user_input",
    }
