"""Inbound Agenta messages: every row of the decision table in turnwire.formats.agenta.parse."""

from __future__ import annotations

import pytest

from turnwire.errors import InputError
from turnwire.formats.agenta import parse_messages
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    ImageBlock,
    Message,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)


def one(raw_message: dict) -> Message:
    out = parse_messages([raw_message])
    assert len(out) == 1
    return out[0]


def error_of(raw) -> InputError:
    with pytest.raises(InputError) as info:
        parse_messages(raw)
    return info.value


# --------------------------------------------------------------------------- container


def test_messages_null_is_empty():
    assert parse_messages(None) == []


def test_messages_empty_list_is_empty():
    assert parse_messages([]) == []


@pytest.mark.parametrize("raw", [{"role": "user", "content": "hi"}, "hello", 3, True])
def test_messages_not_an_array_is_an_input_error_at_messages(raw):
    err = error_of(raw)
    assert err.loc == ("messages",)
    assert "array" in err.msg


# --------------------------------------------------------------------------- message level


@pytest.mark.parametrize("entry", ["user: hi", 7, None, ["user", "hi"], True])
def test_entry_that_is_not_an_object_is_dropped(entry):
    assert parse_messages([entry, {"role": "user", "content": "kept"}]) == [
        Message("user", [TextBlock("kept")])
    ]


def test_message_without_role_is_dropped():
    assert parse_messages([{"content": "no role"}, {"role": "user", "content": "x"}]) == [
        Message("user", [TextBlock("x")])
    ]


@pytest.mark.parametrize("role", [5, None, ["user"], {"r": 1}, False])
def test_non_string_role_is_an_input_error_naming_the_role(role):
    err = error_of([{"role": "user", "content": "a"}, {"role": role, "content": "b"}])
    assert err.loc == ("messages", 1, "role")


def test_role_values_are_open_and_kept_as_given():
    assert [m.role for m in parse_messages([{"role": "function"}, {"role": "Narrator"}])] == [
        "function",
        "Narrator",
    ]


def test_bare_string_content_is_one_text_block():
    assert one({"role": "user", "content": "Summarize 0.106."}) == Message(
        "user", [TextBlock("Summarize 0.106.")]
    )


def test_missing_content_gives_no_blocks():
    assert one({"role": "assistant"}) == Message("assistant", [])


def test_empty_string_content_gives_no_blocks():
    assert one({"role": "assistant", "content": ""}) == Message("assistant", [])


@pytest.mark.parametrize("content", [None, 3, 2.5, {"type": "text", "text": "x"}, True])
def test_malformed_content_is_an_input_error_naming_the_field(content):
    err = error_of([{"role": "system", "content": "ok"}, {"role": "user", "content": content}])
    assert err.loc == ("messages", 1, "content")
    assert str(err).startswith("messages[1].content: ")


def test_extra_message_keys_are_ignored_but_a_string_id_is_kept():
    m = one({"role": "user", "content": "x", "name": "bob", "tool_calls": [], "id": "msg_1"})
    assert m == Message("user", [TextBlock("x")], id="msg_1")


def test_non_string_message_id_is_an_input_error():
    assert error_of([{"role": "user", "id": 12}]).loc == ("messages", 0, "id")


# --------------------------------------------------------------------------- display_content


def test_display_content_absent_is_unset():
    assert one({"role": "user", "content": "x"}).display_content is UNSET


def test_display_content_null_is_none_meaning_hidden():
    assert one({"role": "user", "content": "x", "display_content": None}).display_content is None


def test_display_content_empty_string_is_kept_as_empty_string():
    assert one({"role": "user", "content": "x", "display_content": ""}).display_content == ""


def test_display_content_text_is_kept():
    assert one({"role": "user", "content": "x", "display_content": "shown"}).display_content == "shown"


@pytest.mark.parametrize("value", [3, {"a": 1}, ["x"], True])
def test_display_content_of_another_type_is_an_input_error(value):
    assert error_of([{"role": "user", "display_content": value}]).loc == ("messages", 0, "display_content")


# --------------------------------------------------------------------------- blocks


def test_string_block_is_a_text_block():
    assert one({"role": "user", "content": ["a", "b"]}).content == [TextBlock("a"), TextBlock("b")]


def test_block_without_type_is_a_text_block():
    assert one({"role": "user", "content": [{"text": "untyped"}]}).content == [TextBlock("untyped")]


def test_text_block_without_text_is_empty_text():
    assert one({"role": "user", "content": [{"type": "text"}]}).content == [TextBlock("")]


def test_text_block_with_non_string_text_is_an_input_error():
    err = error_of([{"role": "user", "content": [{"type": "text", "text": 7}]}])
    assert err.loc == ("messages", 0, "content", 0, "text")


@pytest.mark.parametrize("block", [7, None, ["x"], 1.5, False])
def test_block_that_is_not_an_object_or_string_is_an_input_error_naming_its_index(block):
    err = error_of([{"role": "user"}, {"role": "user"}, {"role": "user", "content": ["fine", block]}])
    assert err.loc == ("messages", 2, "content", 1)


@pytest.mark.parametrize("kind", [None, 3, ["text"]])
def test_block_type_that_is_not_a_string_is_an_input_error_naming_type(kind):
    err = error_of([{"role": "user", "content": [{"type": kind, "text": "x"}]}])
    assert err.loc == ("messages", 0, "content", 0, "type")


def test_unknown_block_type_keeps_the_whole_raw_dict():
    raw = {"type": "citation", "url": "https://example.com", "nested": {"k": [1, 2]}}
    block = one({"role": "assistant", "content": [raw]}).content[0]
    assert block == UnknownBlock({"type": "citation", "url": "https://example.com", "nested": {"k": [1, 2]}})
    assert block.raw_type == "citation"


@pytest.mark.parametrize("kind", ["reasoning", "data", "TEXT"])
def test_non_agenta_block_types_are_unknown_blocks(kind):
    assert one({"role": "assistant", "content": [{"type": kind, "text": "t"}]}).content == [
        UnknownBlock({"type": kind, "text": "t"})
    ]


def test_image_block_reads_data_uri_and_mime_type():
    block = {"type": "image", "data": "aGk=", "mimeType": "image/png", "uri": "https://x/y.png"}
    assert one({"role": "user", "content": [block]}).content == [
        ImageBlock(data="aGk=", uri="https://x/y.png", mime_type="image/png")
    ]


def test_resource_block_reads_snake_case_mime_type():
    block = {"type": "resource", "uri": "file:///a.pdf", "mime_type": "application/pdf"}
    assert one({"role": "user", "content": [block]}).content == [
        ResourceBlock(uri="file:///a.pdf", mime_type="application/pdf")
    ]


def test_camel_case_mime_type_beats_snake_case():
    block = {"type": "image", "mimeType": "image/png", "mime_type": "image/jpeg"}
    assert one({"role": "user", "content": [block]}).content[0].mime_type == "image/png"


def test_null_camel_case_falls_back_to_snake_case():
    block = {"type": "tool_call", "toolCallId": None, "tool_call_id": "c1"}
    assert one({"role": "assistant", "content": [block]}).content[0].id == "c1"


def test_image_with_non_string_data_is_an_input_error_naming_the_field():
    err = error_of([{"role": "user", "content": [{"type": "image", "data": 12}]}])
    assert err.loc == ("messages", 0, "content", 0, "data")


def test_image_mime_type_error_names_the_camel_case_key():
    err = error_of([{"role": "user", "content": [{"type": "image", "mime_type": 1}]}])
    assert err.loc == ("messages", 0, "content", 0, "mimeType")


def test_attachment_block_reads_every_field_in_both_spellings():
    blocks = [
        {
            "type": "attachment",
            "attachmentId": "att_1",
            "filename": "a.pdf",
            "mimeType": "application/pdf",
            "size": 10,
        },
        {"type": "attachment", "attachment_id": "att_2", "mime_type": "text/plain"},
    ]
    assert one({"role": "user", "content": blocks}).content == [
        AttachmentBlock("att_1", filename="a.pdf", mime_type="application/pdf", size=10),
        AttachmentBlock("att_2", mime_type="text/plain"),
    ]


def test_attachment_without_id_is_an_input_error():
    err = error_of([{"role": "user", "content": [{"type": "attachment", "filename": "a"}]}])
    assert err.loc == ("messages", 0, "content", 0, "attachmentId")


def test_attachment_with_non_integer_size_is_an_input_error():
    err = error_of([{"role": "user", "content": [{"type": "attachment", "attachmentId": "a", "size": "9"}]}])
    assert err.loc == ("messages", 0, "content", 0, "size")


def test_tool_call_block_reads_id_name_and_input():
    block = {
        "type": "tool_call",
        "toolCallId": "call_019d952f",
        "toolName": "bash",
        "input": {"command": "ls"},
    }
    assert one({"role": "assistant", "content": [block]}).content == [
        ToolCallBlock("call_019d952f", "bash", {"command": "ls"})
    ]


def test_tool_call_block_reads_snake_case_spellings():
    block = {"type": "tool_call", "tool_call_id": "c", "tool_name": "t"}
    assert one({"role": "assistant", "content": [block]}).content == [ToolCallBlock("c", "t", None)]


def test_tool_call_with_non_string_name_is_an_input_error():
    err = error_of([{"role": "assistant", "content": [{"type": "tool_call", "toolName": 4}]}])
    assert err.loc == ("messages", 0, "content", 0, "toolName")


def test_tool_result_block_reads_every_field():
    block = {
        "type": "tool_result",
        "toolCallId": "c",
        "toolName": "bash",
        "output": "index.md\n",
        "isError": False,
    }
    assert one({"role": "assistant", "content": [block]}).content == [
        ToolResultBlock("c", "bash", "index.md\n", False)
    ]


def test_tool_result_without_output_has_unset_output():
    block = one({"role": "tool", "content": [{"type": "tool_result", "toolCallId": "c"}]}).content[0]
    assert block.output is UNSET
    assert block.is_error is None


def test_tool_result_null_output_is_kept_as_none():
    block = one({"role": "tool", "content": [{"type": "tool_result", "output": None}]}).content[0]
    assert block.output is None


def test_tool_result_object_output_is_kept():
    block = one({"role": "tool", "content": [{"type": "tool_result", "output": {"approved": True}}]}).content[
        0
    ]
    assert block.output == {"approved": True}


def test_is_error_false_beats_snake_case_is_error_true():
    block = {"type": "tool_result", "isError": False, "is_error": True}
    assert one({"role": "tool", "content": [block]}).content[0].is_error is False


def test_is_error_null_falls_back_to_snake_case():
    block = {"type": "tool_result", "isError": None, "is_error": True}
    assert one({"role": "tool", "content": [block]}).content[0].is_error is True


def test_non_boolean_is_error_is_an_input_error():
    err = error_of([{"role": "tool", "content": [{"type": "tool_result", "isError": "yes"}]}])
    assert err.loc == ("messages", 0, "content", 0, "isError")


def test_unknown_block_keys_are_ignored_on_known_types():
    assert one({"role": "user", "content": [{"type": "text", "text": "a", "cache": True}]}).content == [
        TextBlock("a")
    ]


# --------------------------------------------------------------------------- flat batch shapes


def test_flat_batch_tool_call_is_read_back_as_a_tool_call_block():
    raw = {"role": "tool", "content": "", "tool_call_id": "call_1", "tool_name": "Delete file", "input": {}}
    assert one(raw) == Message("tool", [ToolCallBlock("call_1", "Delete file", {})])


def test_flat_batch_tool_result_is_read_back_as_a_tool_result_block():
    raw = {"role": "tool", "content": "found", "tool_call_id": "t1", "is_error": None}
    assert one(raw) == Message("tool", [ToolResultBlock("t1", None, "found", None)])


def test_flat_batch_tool_result_keeps_null_and_object_output():
    out = parse_messages(
        [
            {"role": "tool", "content": None, "tool_call_id": "a", "is_error": False},
            {"role": "tool", "content": {"rows": 3}, "tool_call_id": "b", "is_error": True},
        ]
    )
    assert out == [
        Message("tool", [ToolResultBlock("a", None, None, False)]),
        Message("tool", [ToolResultBlock("b", None, {"rows": 3}, True)]),
    ]


def test_openai_style_tool_message_is_a_tool_result():
    raw = {"role": "tool", "tool_call_id": "call_9", "content": "42"}
    assert one(raw) == Message("tool", [ToolResultBlock("call_9", None, "42", None)])


def test_flat_tool_shape_with_bad_is_error_is_an_input_error():
    err = error_of([{"role": "tool", "content": "x", "tool_call_id": "t", "is_error": "no"}])
    assert err.loc == ("messages", 0, "is_error")


def test_flat_tool_shape_with_non_string_call_id_is_an_input_error():
    err = error_of([{"role": "tool", "content": "x", "tool_call_id": 3}])
    assert err.loc == ("messages", 0, "tool_call_id")


def test_spec_example_message_parses_to_call_and_result():
    raw = {
        "role": "assistant",
        "content": [
            {
                "type": "tool_call",
                "toolCallId": "call_019d952f",
                "toolName": "bash",
                "input": {"command": "ls docs"},
            },
            {
                "type": "tool_result",
                "toolCallId": "call_019d952f",
                "toolName": "bash",
                "output": "index.md\n",
                "isError": False,
            },
        ],
    }
    assert one(raw) == Message(
        "assistant",
        [
            ToolCallBlock("call_019d952f", "bash", {"command": "ls docs"}),
            ToolResultBlock("call_019d952f", "bash", "index.md\n", False),
        ],
    )


# --------------------------------------------------------------------------- large inputs


def test_large_parse_and_render_leave_the_garbage_collector_enabled():
    import gc

    from turnwire.formats.agenta import render_messages

    wire = [{"role": "user", "content": f"m{i}"} for i in range(2000)]
    assert gc.isenabled()
    parsed = parse_messages(wire)
    assert gc.isenabled()
    assert render_messages(parsed) == wire
    assert gc.isenabled()


def test_large_parse_that_fails_still_reenables_the_garbage_collector_and_names_the_index():
    import gc

    wire = [{"role": "user", "content": "x"}] * 1500 + [{"role": "user", "content": 5}]
    err = error_of(wire)
    assert err.loc == ("messages", 1500, "content")
    assert gc.isenabled()


def test_large_parse_does_not_enable_a_collector_the_caller_disabled():
    import gc

    gc.disable()
    try:
        parse_messages([{"role": "user", "content": "x"}] * 1000)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_vercel_uimessage_sent_as_agenta_is_refused_with_a_hint_not_emptied() -> None:
    with pytest.raises(InputError) as caught:
        parse_messages([{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}])
    assert caught.value.loc == ("messages", 0, "content")
    assert "x-ag-messages-format: vercel" in caught.value.msg
