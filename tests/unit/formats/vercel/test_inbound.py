"""UIMessage → canonical: every row of the spec's Vercel part and tool-state tables, plus edge cases."""

from __future__ import annotations

from typing import Any

import pytest

from turnwire.errors import InputError
from turnwire.formats.vercel import continuation_id, parse_messages, render_messages
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    DataBlock,
    ImageBlock,
    ReasoningBlock,
    ResourceBlock,
    SourceDocumentBlock,
    SourceUrlBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)


def blocks(*parts: dict[str, Any], role: str = "assistant") -> list[Any]:
    return parse_messages([{"id": "m", "role": role, "parts": list(parts)}])[0].content


def test_text_part_becomes_text_block_and_empty_text_is_kept() -> None:
    assert blocks({"type": "text", "text": "hi"}, {"type": "text", "text": ""}) == [
        TextBlock("hi"),
        TextBlock(""),
    ]


def test_text_part_without_text_is_dropped() -> None:
    assert blocks({"type": "text"}, {"type": "text", "text": None}) == []


def test_file_with_image_media_type_becomes_image_block_and_data_url_stays_uri() -> None:
    url = "data:image/png;base64,AAAA"
    assert blocks({"type": "file", "mediaType": "image/png", "url": url, "filename": "a.png"}) == [
        ImageBlock(uri=url, mime_type="image/png", filename="a.png")
    ]


def test_file_with_other_media_type_becomes_resource_block_from_mimetype_and_uri() -> None:
    assert blocks({"type": "file", "mimeType": "application/pdf", "uri": "https://x/a.pdf"}) == [
        ResourceBlock(uri="https://x/a.pdf", mime_type="application/pdf")
    ]


def test_file_without_media_type_is_a_resource() -> None:
    assert blocks({"type": "file", "url": "https://x/a"}) == [ResourceBlock(uri="https://x/a")]


def test_file_with_agenta_attachment_uuid_becomes_attachment_only_when_lowercase() -> None:
    uid = "0190d5f2-3c4b-7a8e-9f00-112233445566"
    meta = {"agenta": {"attachmentId": uid}}
    assert blocks({"type": "file", "mediaType": "text/plain", "url": "", "providerMetadata": meta}) == [
        AttachmentBlock(uid, mime_type="text/plain")
    ]
    upper = {"agenta": {"attachmentId": uid.upper()}}
    assert isinstance(blocks({"type": "file", "url": "u", "providerMetadata": upper})[0], ResourceBlock)


def test_tool_part_output_available_gives_call_and_result() -> None:
    part = {
        "type": "tool-bash",
        "toolCallId": "c1",
        "state": "output-available",
        "input": {"a": 1},
        "output": "ok",
    }
    assert blocks(part) == [
        ToolCallBlock("c1", "bash", {"a": 1}),
        ToolResultBlock("c1", "bash", output="ok", is_error=False),
    ]


def test_tool_part_output_available_with_null_or_object_output_keeps_it() -> None:
    null = {"type": "tool-x", "toolCallId": "c", "state": "output-available", "input": {}, "output": None}
    assert blocks(null)[1].output is None
    obj = {
        "type": "tool-x",
        "toolCallId": "c",
        "state": "output-available",
        "input": {},
        "output": {"k": [1]},
    }
    assert blocks(obj)[1].output == {"k": [1]}


def test_tool_part_output_available_without_output_key_has_unset_output() -> None:
    part = {"type": "tool-x", "toolCallId": "c", "state": "output-available", "input": {}}
    assert blocks(part)[1].output is UNSET


def test_tool_part_output_error_uses_error_text_as_output() -> None:
    part = {"type": "tool-x", "toolCallId": "c", "state": "output-error", "input": {}, "errorText": "boom"}
    assert blocks(part)[1] == ToolResultBlock("c", "x", output="boom", is_error=True)


def test_tool_part_output_error_without_error_text_falls_back_to_output() -> None:
    part = {"type": "tool-x", "toolCallId": "c", "state": "output-error", "output": "raw"}
    assert blocks(part)[1] == ToolResultBlock("c", "x", output="raw", is_error=True)


def test_tool_part_output_denied_gives_approved_false_with_token_and_reason() -> None:
    part = {
        "type": "tool-x",
        "toolCallId": "c",
        "state": "output-denied",
        "input": {},
        "approval": {"id": "ap", "approved": False, "reason": "no"},
    }
    assert blocks(part)[1].output == {"approved": False, "interactionToken": "ap", "reason": "no"}


def test_tool_part_output_denied_without_approval_still_denies() -> None:
    part = {"type": "tool-x", "toolCallId": "c", "state": "output-denied", "input": {}}
    assert blocks(part)[1].output == {"approved": False}


@pytest.mark.parametrize("approved", [True, False])
def test_tool_part_approval_responded_gives_decision_with_interaction_token(approved: bool) -> None:
    part = {
        "type": "tool-bash",
        "toolCallId": "c",
        "state": "approval-responded",
        "input": {"command": "rm"},
        "approval": {"id": "perm_1", "approved": approved},
    }
    result = blocks(part)[1]
    assert result.output == {"approved": approved, "interactionToken": "perm_1"}
    assert result.is_error is None


@pytest.mark.parametrize("state", ["input-available", "input-streaming", "approval-requested"])
def test_tool_part_without_outcome_gives_call_only_and_invents_no_decision(state: str) -> None:
    part = {"type": "tool-x", "toolCallId": "c", "state": state, "input": {"a": 1}, "approval": {"id": "ap"}}
    assert blocks(part) == [ToolCallBlock("c", "x", {"a": 1})]


@pytest.mark.parametrize("bad", ["true", 1, 0, "false", [True]])
def test_non_boolean_approved_is_an_input_error_naming_the_field(bad: Any) -> None:
    part = {
        "type": "tool-x",
        "toolCallId": "c",
        "state": "approval-responded",
        "approval": {"id": "a", "approved": bad},
    }
    with pytest.raises(InputError) as err:
        parse_messages(
            [
                {"role": "user", "parts": [{"type": "text", "text": "x"}]},
                {"role": "assistant", "parts": [part]},
            ]
        )
    assert err.value.loc == ("messages", 1, "parts", 0, "approval", "approved")


def test_tool_name_field_beats_suffix_and_case_is_kept() -> None:
    assert blocks({"type": "tool-Bash", "toolCallId": "c", "input": {}})[0].name == "Bash"
    assert blocks({"type": "tool-x", "toolName": "Real", "toolCallId": "c"})[0].name == "Real"
    assert blocks({"type": "tool-x", "tool_name": "snake", "tool_call_id": "c"})[0] == ToolCallBlock(
        "c", "snake"
    )


def test_dynamic_tool_takes_tool_name_and_nameless_dynamic_tool_has_none() -> None:
    assert blocks({"type": "dynamic-tool", "toolName": "Delete file", "toolCallId": "c", "input": {}})[
        0
    ].name == ("Delete file")
    assert blocks({"type": "dynamic-tool", "toolCallId": "c"})[0].name is None


@pytest.mark.parametrize(
    ("marker", "result"),
    [
        ("tool-output-available", ToolResultBlock("c", None, output="ok", is_error=False)),
        ("TOOL_OUTPUT_AVAILABLE", ToolResultBlock("c", None, output="ok", is_error=False)),
        ("tool-output-error", ToolResultBlock("c", None, output="ok", is_error=True)),
    ],
)
def test_output_markers_give_a_result_and_no_call_without_input(marker: str, result: ToolResultBlock) -> None:
    assert blocks({"type": marker, "toolCallId": "c", "output": "ok"}) == [result]


def test_output_marker_with_input_also_gives_the_call_and_never_takes_its_name_from_the_marker() -> None:
    got = blocks({"type": "tool-output-available", "toolCallId": "c", "input": {"a": 1}, "output": 2})
    assert got == [ToolCallBlock("c", None, {"a": 1}), ToolResultBlock("c", None, output=2, is_error=False)]


def test_bare_output_denied_marker_gives_a_denial() -> None:
    assert blocks({"type": "tool-output-denied", "toolCallId": "c"}) == [
        ToolResultBlock("c", None, output={"approved": False})
    ]


def test_approval_response_part_is_a_result_keyed_by_tool_call_id_with_approval_id_fallback() -> None:
    keyed = blocks(
        {"type": "tool-approval-response", "approvalId": "ap", "toolCallId": "c", "approved": True}
    )
    assert keyed == [ToolResultBlock("c", None, output={"approved": True, "interactionToken": "ap"})]
    fallback = blocks({"type": "tool-approval-response", "approvalId": "ap", "approved": False})
    assert fallback == [ToolResultBlock("ap", None, output={"approved": False, "interactionToken": "ap"})]


def test_approval_response_output_beats_approved_and_reason_alone_is_the_output() -> None:
    part = {"type": "tool-approval-response", "approvalId": "ap", "output": {"x": 1}, "approved": True}
    assert blocks(part)[0].output == {"x": 1}
    assert blocks({"type": "tool-approval-response", "approvalId": "ap", "reason": "why"})[0].output == "why"


def test_approval_response_with_non_boolean_approved_is_an_input_error() -> None:
    with pytest.raises(InputError) as err:
        blocks({"type": "tool-approval-response", "approvalId": "ap", "approved": "yes"})
    assert err.value.loc == ("messages", 0, "parts", 0, "approved")


def test_two_approval_responses_give_two_results() -> None:
    got = blocks(
        {"type": "tool-approval-response", "approvalId": "a1", "toolCallId": "c1", "approved": True},
        {"type": "tool-approval-response", "approvalId": "a2", "toolCallId": "c2", "approved": False},
    )
    assert [b.id for b in got] == ["c1", "c2"]


def test_approval_request_and_step_start_parts_are_dropped() -> None:
    assert (
        blocks(
            {"type": "step-start"}, {"type": "tool-approval-request", "approvalId": "a", "toolCallId": "c"}
        )
        == []
    )


def test_reasoning_becomes_reasoning_block_and_data_part_a_named_data_block() -> None:
    got = blocks({"type": "reasoning", "text": "hmm", "id": "r1"}, {"type": "data-weather", "data": {"t": 1}})
    assert got == [ReasoningBlock("hmm", id="r1"), DataBlock(data={"t": 1}, name="weather")]


def test_source_parts_become_source_blocks() -> None:
    url = {"type": "source-url", "sourceId": "s", "url": "https://x", "title": "X"}
    doc = {"type": "source-document", "sourceId": "d", "mediaType": "application/pdf", "title": "Doc"}
    assert blocks(url, doc) == [
        SourceUrlBlock("s", "https://x", "X"),
        SourceDocumentBlock("d", "application/pdf", "Doc"),
    ]


def test_source_parts_with_more_than_a_block_holds_and_unknown_part_types_are_kept_raw() -> None:
    meta = {"type": "source-url", "sourceId": "s", "url": "https://x", "providerMetadata": {"p": {"k": 1}}}
    partial = {"type": "source-document", "sourceId": "d", "title": "no media type"}
    new = {"type": "some-future-part", "x": 1}
    assert blocks(meta, partial, new) == [UnknownBlock(meta), UnknownBlock(partial), UnknownBlock(new)]
    # Rendered back as they came.
    assert render_messages(parse_messages([{"id": "a", "role": "assistant", "parts": [meta, partial]}])) == [
        {"id": "a", "role": "assistant", "parts": [meta, partial]}
    ]


def test_an_ai7_custom_part_is_kept_raw_and_rendered_back_as_it_came() -> None:
    # Only an ai 7 client holds (and sends) one; its next turn's history keeps it.
    custom = {"type": "custom", "kind": "acme.plan", "providerMetadata": {"turnwire": {"data": [1]}}}
    bare = {"type": "custom", "kind": "acme.mark"}
    assert blocks(custom, bare) == [UnknownBlock(custom), UnknownBlock(bare)]
    assert render_messages(parse_messages([{"id": "a", "role": "assistant", "parts": [custom, bare]}])) == [
        {"id": "a", "role": "assistant", "parts": [custom, bare]}
    ]


def test_data_parts_in_user_messages_and_unknown_keys_never_fail() -> None:
    msgs = parse_messages(
        [
            {
                "id": "u",
                "role": "user",
                "extra": 1,
                "parts": [
                    {"type": "data-ctx", "data": 1},
                    {"type": "text", "text": "a", "providerMetadata": {}},
                ],
            },
            {
                "role": "assistant",
                "parts": [
                    {"type": "reasoning", "text": "r", "id": "r1", "providerMetadata": {"a": {}}},
                    {
                        "type": "dynamic-tool",
                        "toolName": "t",
                        "toolCallId": "c",
                        "state": "output-available",
                        "input": {},
                        "output": 1,
                        "providerExecuted": True,
                        "title": "T",
                        "resultProviderMetadata": {"x": {}},
                    },
                ],
            },
        ]
    )
    assert [len(m.content) for m in msgs] == [2, 3]


def test_message_id_and_metadata_are_kept_and_display_content_is_read_from_metadata() -> None:
    msg = parse_messages(
        [{"id": "u1", "role": "user", "parts": [], "metadata": {"display_content": None, "a": 1}}]
    )[0]
    assert msg.id == "u1"
    assert msg.metadata == {"display_content": None, "a": 1}
    assert msg.display_content is None


def test_message_without_parts_falls_back_to_agenta_content() -> None:
    got = parse_messages(
        [
            {"role": "user", "content": "plain"},
            {"role": "user", "parts": None, "content": [{"type": "text", "text": "a"}, "b"]},
            {"role": "user"},
        ]
    )
    assert [m.content for m in got] == [[TextBlock("plain")], [TextBlock("a"), TextBlock("b")], []]


@pytest.mark.parametrize("content", [3, {"a": 1}, True])
def test_fallback_content_of_wrong_type_is_an_input_error(content: Any) -> None:
    with pytest.raises(InputError) as err:
        parse_messages([{"role": "user", "content": content}])
    assert err.value.loc == ("messages", 0, "content")


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ({"a": 1}, ("messages",)),
        ("text", ("messages",)),
        (None, ("messages",)),
        ([{"role": "user", "parts": []}, 5], ("messages", 1)),
        ([{"parts": []}], ("messages", 0, "role")),
        ([{"role": 5, "parts": []}], ("messages", 0, "role")),
        ([{"role": "user", "parts": "hi"}], ("messages", 0, "parts")),
        ([{"role": "user", "parts": ["hi"]}], ("messages", 0, "parts", 0)),
        ([{"role": "user", "parts": [{"text": "x"}]}], ("messages", 0, "parts", 0, "type")),
    ],
)
def test_bad_container_message_or_part_is_an_input_error_naming_where(raw: Any, loc: tuple) -> None:
    with pytest.raises(InputError) as err:
        parse_messages(raw)
    assert err.value.loc == loc


def test_continuation_id_only_for_a_trailing_assistant_with_a_non_empty_string_id() -> None:
    asst = {"role": "assistant", "id": "a1", "parts": []}
    assert continuation_id([{"role": "user", "id": "u"}, asst]) == "a1"
    assert continuation_id([asst, {"role": "user", "id": "u"}]) is None
    for bad in (None, "", 5):
        assert continuation_id([{**asst, "id": bad}]) is None
    assert continuation_id([]) is None
    assert continuation_id("nope") is None


@pytest.mark.parametrize(
    ("part", "field"),
    [
        ({"type": "tool-x", "toolCallId": 5, "state": "input-available", "input": {}}, ("toolCallId",)),
        ({"type": "dynamic-tool", "toolName": "x", "tool_call_id": ["c"], "input": {}}, ("tool_call_id",)),
        (
            {
                "type": "tool-x",
                "toolCallId": "c",
                "state": "approval-responded",
                "approval": {"id": 3, "approved": True},
            },
            ("approval", "id"),
        ),
        ({"type": "tool-approval-response", "approvalId": 7, "approved": True}, ("approvalId",)),
        (
            {"type": "tool-approval-response", "toolCallId": 1.5, "approvalId": "a", "approved": False},
            ("toolCallId",),
        ),
    ],
)
def test_an_id_that_is_not_a_string_is_an_input_error_not_a_dropped_decision(
    part: dict, field: tuple
) -> None:
    with pytest.raises(InputError) as err:
        parse_messages([{"role": "assistant", "parts": [part]}])
    assert err.value.loc == ("messages", 0, "parts", 0, *field)


def test_an_approval_without_a_decision_may_carry_any_id() -> None:
    # approval-requested echoes the server's approval object; only a decision's id is checked.
    part = {
        "type": "tool-x",
        "toolCallId": "c",
        "state": "approval-requested",
        "input": {},
        "approval": {"id": 9},
    }
    assert blocks(part) == [ToolCallBlock("c", "x", {})]


def test_an_ai_7_decision_returns_its_signature_which_is_read_as_the_token() -> None:
    part = {
        "type": "tool-rm",
        "toolCallId": "c",
        "state": "approval-responded",
        "input": {},
        "approval": {"id": "ap_1", "approved": True, "signature": "ap_signed", "isAutomatic": False},
    }
    assert blocks(part)[1].output == {"approved": True, "interactionToken": "ap_signed"}


def test_a_signature_of_another_type_on_a_decision_is_an_input_error_naming_it() -> None:
    part = {"type": "tool-rm", "toolCallId": "c", "approval": {"id": "a", "approved": True, "signature": 7}}
    with pytest.raises(InputError) as err:
        parse_messages([{"role": "assistant", "parts": [part]}])
    assert err.value.loc == ("messages", 0, "parts", 0, "approval", "signature")
