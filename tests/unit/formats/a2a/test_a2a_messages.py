"""A2A messages and parts ⇄ canonical: every row of the part table both ways, checked against the
``a2a-sdk`` protobuf types (what its client parses), roles, and bad input naming the field."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from a2a.types import a2a_pb2
from google.protobuf import json_format

from turnwire.errors import InputError
from turnwire.formats import get_format
from turnwire.formats.a2a import (
    REASONING_MEDIA_TYPE,
    TOOL_CALL_MEDIA_TYPE,
    TOOL_RESULT_MEDIA_TYPE,
    parse_message,
    parse_messages,
    render_message,
    render_messages,
)
from turnwire.formats.a2a.legacy import message_from_v03, message_to_v03
from turnwire.model import (
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

PNG = base64.b64encode(b"\x89PNG fake").decode()


def as_sdk_message(raw: dict[str, Any]) -> a2a_pb2.Message:
    """What the a2a-sdk client makes of a message we send (strict: unknown fields fail)."""
    return json_format.ParseDict(raw, a2a_pb2.Message())


def test_the_format_is_registered_and_converts_both_ways() -> None:
    fmt = get_format("a2a")
    assert fmt.parse_messages is parse_messages and fmt.render_messages is render_messages
    assert not fmt.serves_turns  # turns go through the A2A door, not /invoke


def test_every_block_kind_round_trips_through_a_part_the_sdk_parses() -> None:
    blocks = [
        TextBlock("hello"),
        ImageBlock(data=PNG, mime_type="image/png", filename="a.png"),
        ResourceBlock(uri="https://example.org/r.pdf", mime_type="application/pdf", filename="r.pdf"),
        DataBlock({"k": [1, 2]}, "facts"),
        ToolCallBlock("c1", "get_weather", {"city": "Paris"}),
        ToolResultBlock("c1", "get_weather", {"temp": 21}, False),
        ReasoningBlock("thinking", ["short"]),
    ]
    raw = render_message(Message("assistant", blocks, id="m1"))
    sdk = as_sdk_message(raw)
    assert sdk.role == a2a_pb2.ROLE_AGENT
    assert [p.WhichOneof("content") for p in sdk.parts] == [
        "text",
        "raw",
        "url",
        "data",
        "data",
        "data",
        "data",
    ]
    assert base64.b64decode(PNG) == sdk.parts[1].raw and sdk.parts[1].media_type == "image/png"
    assert sdk.parts[2].filename == "r.pdf"
    assert [p.media_type for p in sdk.parts[4:]] == [
        TOOL_CALL_MEDIA_TYPE,
        TOOL_RESULT_MEDIA_TYPE,
        REASONING_MEDIA_TYPE,
    ]
    back = parse_message(raw)
    assert back.role == "assistant" and back.id == "m1"
    assert back.content == blocks


def test_user_messages_and_v03_roles_parse() -> None:
    msgs = parse_messages(
        [
            {"messageId": "u1", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
            {"messageId": "a1", "role": "agent", "parts": [{"text": "hello"}]},
        ]
    )
    assert [(m.role, m.id) for m in msgs] == [("user", "u1"), ("assistant", "a1")]
    assert render_message(msgs[0])["role"] == "ROLE_USER"


def test_a_user_message_of_only_tool_results_is_the_tool_message_of_decisions() -> None:
    decision = ToolResultBlock("c1", output={"approved": True, "interactionToken": "ap_x"})
    raw = render_message(Message("tool", [decision]))
    assert raw["role"] == "ROLE_USER" and "metadata" not in raw
    back = parse_message(raw)
    assert back.role == "tool" and back.content[0].output == {"approved": True, "interactionToken": "ap_x"}


def test_other_roles_keep_their_name_in_metadata() -> None:
    raw = render_message(Message("system", [TextBlock("be brief")]))
    assert raw["role"] == "ROLE_USER" and raw["metadata"] == {"turnwireRole": "system"}
    assert parse_message(raw).role == "system"


def test_an_inbound_image_by_url_is_an_image_block_and_other_files_resources() -> None:
    msg = parse_message(
        {
            "role": "ROLE_USER",
            "parts": [
                {"url": "https://x/cat.jpg", "mediaType": "image/jpeg"},
                {"raw": PNG, "mediaType": "text/csv", "filename": "t.csv"},
            ],
        }
    )
    assert msg.content == [
        ImageBlock(uri="https://x/cat.jpg", mime_type="image/jpeg"),
        ResourceBlock(data=PNG, mime_type="text/csv", filename="t.csv"),
    ]


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ({"role": "ROLE_USER", "parts": [{"text": "a", "data": {}}]}, "message.parts[0]"),
        ({"role": "ROLE_USER", "parts": []}, "message.parts"),
        ({"role": "ROLE_NOBODY", "parts": [{"text": "a"}]}, "message.role"),
        ({"role": "ROLE_USER", "parts": [{"text": 3}]}, "message.parts[0].text"),
        ({"role": "ROLE_USER", "parts": [{"url": "u", "mediaType": 7}]}, "message.parts[0].mediaType"),
        ({"role": "ROLE_USER", "parts": ["text"]}, "message.parts[0]"),
        ("hi", "message"),
    ],
)
def test_bad_messages_are_refused_naming_the_field(raw: Any, where: str) -> None:
    with pytest.raises(InputError) as info:
        parse_message(raw)
    assert info.value.where == where


def test_v03_parts_convert_to_v1_and_back() -> None:
    v03 = {
        "kind": "message",
        "messageId": "m",
        "role": "user",
        "parts": [
            {"kind": "text", "text": "hi"},
            {"kind": "file", "file": {"bytes": PNG, "mimeType": "image/png", "name": "p.png"}},
            {"kind": "file", "file": {"uri": "https://x/y"}},
            {"kind": "data", "data": {"a": 1}},
        ],
    }
    v1 = message_from_v03(v03)
    assert v1["parts"] == [
        {"text": "hi"},
        {"raw": PNG, "mediaType": "image/png", "filename": "p.png"},
        {"url": "https://x/y"},
        {"data": {"a": 1}},
    ]
    assert message_to_v03({**v1, "role": "ROLE_USER"}) == v03


def test_v03_data_parts_carry_non_objects_and_media_types_in_metadata() -> None:
    part = {"data": [1, 2], "mediaType": TOOL_CALL_MEDIA_TYPE}
    out = message_to_v03({"messageId": "m", "role": "ROLE_AGENT", "parts": [part]})
    assert out["parts"] == [
        {
            "kind": "data",
            "data": {"value": [1, 2]},
            "metadata": {"data_part_compat": True, "mediaType": TOOL_CALL_MEDIA_TYPE},
        }
    ]
    assert message_from_v03(out)["parts"] == [part]
