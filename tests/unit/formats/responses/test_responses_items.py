"""Responses input items ⇄ canonical messages, both directions, and the request body's checks."""

from __future__ import annotations

import pytest

from turnwire.convert import convert
from turnwire.errors import InputError
from turnwire.formats import get_format
from turnwire.formats.responses import parse_messages, parse_request, render_messages
from turnwire.model import (
    AttachmentBlock,
    ImageBlock,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

HISTORY = [
    {"role": "developer", "content": "be brief"},
    {
        "type": "message",
        "role": "user",
        "content": [
            {"type": "input_text", "text": "what is this?"},
            {"type": "input_image", "image_url": "data:image/png;base64,AAAA"},
            {"type": "input_file", "file_id": "file_1", "filename": "a.pdf"},
            {"type": "input_file", "file_data": "data:text/plain;base64,aGk=", "filename": "hi.txt"},
        ],
    },
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "looking"}]},
    {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city": "Paris"}'},
    {"type": "function_call_output", "call_id": "c1", "output": '{"t": 21}'},
    {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "sunny"}]},
]


def test_input_items_become_canonical_messages() -> None:
    msgs = parse_messages(HISTORY)
    assert [m.role for m in msgs] == ["developer", "user", "assistant", "assistant", "tool", "assistant"]
    assert msgs[0].content == [TextBlock("be brief")]
    text, image, attachment, resource = msgs[1].content
    assert text == TextBlock("what is this?")
    assert isinstance(image, ImageBlock) and image.mime_type == "image/png"
    assert attachment == AttachmentBlock("file_1", filename="a.pdf")
    assert resource == ResourceBlock(data="aGk=", mime_type="text/plain", filename="hi.txt")
    assert msgs[2].content == [ReasoningBlock("looking", ["looking"], "rs_1")]
    assert msgs[3].content == [ToolCallBlock("c1", "get_weather", {"city": "Paris"})]
    assert msgs[4].content == [ToolResultBlock("c1", output={"t": 21})]
    assert msgs[5].content == [TextBlock("sunny")]


def test_a_string_input_is_one_user_message() -> None:
    (msg,) = parse_messages("hello")
    assert msg.role == "user" and msg.content == [TextBlock("hello")]


def test_items_round_trip_through_canonical() -> None:
    again = parse_messages(render_messages(parse_messages(HISTORY)))
    assert [(m.role, m.content) for m in again] == [(m.role, m.content) for m in parse_messages(HISTORY)]


def test_an_approval_response_is_a_decision_carrying_its_token() -> None:
    item = {"type": "mcp_approval_response", "approval_request_id": "ap_x", "approve": False, "reason": "no"}
    (msg,) = parse_messages([item])
    (block,) = msg.content
    assert msg.role == "tool" and block.id is None
    assert block.output == {"approved": False, "interactionToken": "ap_x", "reason": "no"}
    assert render_messages([msg]) == [item]


def test_mcp_call_becomes_a_call_and_its_result() -> None:
    item = {
        "type": "mcp_call",
        "id": "c9",
        "name": "t",
        "arguments": "{}",
        "output": "ok",
        "server_label": "demo",
    }
    call, result = parse_messages([item])
    assert call.content == [ToolCallBlock("c9", "t", {})]
    assert result.content == [ToolResultBlock("c9", "t", "ok")]


def test_unknown_item_types_and_fields_never_fail() -> None:
    msgs = parse_messages(
        [{"type": "web_search_call", "id": "w"}, {"role": "user", "content": "x", "zzz": 1}]
    )
    assert len(msgs) == 2


@pytest.mark.parametrize(
    ("items", "where"),
    [
        ([{"role": "robot", "content": "x"}], "input[0].role"),
        ([{"type": "function_call", "name": "f"}], "input[0].call_id"),
        ([{"type": "function_call_output", "call_id": 3}], "input[0].call_id"),
        (
            [{"type": "mcp_approval_response", "approval_request_id": "a", "approve": "yes"}],
            "input[0].approve",
        ),
        ([{"role": "user", "content": [{"type": "input_text", "text": 5}]}], "input[0].content[0].text"),
        ([7], "input[0]"),
        (5, "input"),
    ],
)
def test_wrong_types_name_the_field(items: object, where: str) -> None:
    with pytest.raises(InputError) as err:
        parse_messages(items)
    assert err.value.where == where


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"input": "x"}, "model"),
        ({"model": "demo", "stream": "yes"}, "stream"),
        ({"model": "demo", "store": 1}, "store"),
        ({"model": "demo", "metadata": {"a": 1}}, "metadata.a"),
        ({"model": "demo", "instructions": 3}, "instructions"),
        ({"model": "demo", "previous_response_id": 3}, "previous_response_id"),
        ({"model": "demo", "tools": [{"type": "function"}]}, "tools[0].name"),
        ({"model": "demo", "temperature": "hot"}, "temperature"),
        ({"model": "demo", "conversation": 4}, "conversation"),
    ],
)
def test_request_wrong_types_name_the_field(body: dict, where: str) -> None:
    with pytest.raises(InputError) as err:
        parse_request(body)
    assert err.value.where == where


def test_request_defaults_and_instructions_lead() -> None:
    req = parse_request({"model": "demo", "input": "hi", "instructions": "be kind", "frobnicate": True})
    assert req.store is True and req.stream is False and req.metadata == {}
    assert [m.role for m in req.messages] == ["system", "user"]
    assert req.parameters == {"frobnicate": True}


def test_registered_and_converts_to_vercel() -> None:
    assert get_format("responses").name == "responses"
    out = convert([{"role": "user", "content": "hi"}], source="responses", target="vercel")
    assert out[0]["role"] == "user" and out[0]["parts"] == [{"type": "text", "text": "hi"}]
