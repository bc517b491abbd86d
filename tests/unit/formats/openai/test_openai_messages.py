"""Chat Completions messages ⇄ canonical: content parts, tool calls and results, approvals answered
with a tool message, the request envelope, errors naming the field, and round trips both ways."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletionMessageParam
from pydantic import TypeAdapter

from turnwire.convert import convert
from turnwire.errors import InputError
from turnwire.formats.openai import APPROVAL_TOOL, parse_messages, parse_request, render_messages
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)
from turnwire.runtime.transcript import decisions

PARAM = TypeAdapter(ChatCompletionMessageParam)

CONVERSATION: list[dict[str, Any]] = [
    {"role": "system", "content": "Be brief."},
    {"role": "developer", "content": "Use tools."},
    {"role": "user", "content": "weather in Paris"},
    {
        "role": "assistant",
        "reasoning_content": "I will call it.",
        "content": "Looking.",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": "Sunny"},
    {"role": "assistant", "content": "It is sunny."},
    {"role": "assistant", "refusal": "I cannot."},
]


def test_conversation_maps_to_canonical_blocks() -> None:
    msgs = parse_messages(CONVERSATION)
    assert msgs[3].content == [
        ReasoningBlock("I will call it."),
        TextBlock("Looking."),
        ToolCallBlock("c1", "get_weather", {"city": "Paris"}),
    ]
    assert msgs[4].content == [ToolResultBlock("c1", output="Sunny")]
    assert msgs[6].content == [UnknownBlock({"type": "refusal", "refusal": "I cannot."})]


def test_conversation_round_trips_exactly_and_the_sdk_accepts_every_message() -> None:
    out = render_messages(parse_messages(CONVERSATION))
    assert out == CONVERSATION
    for message in out:
        PARAM.validate_python(message)


def test_user_content_parts() -> None:
    content = [
        {"type": "text", "text": "see"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAA"}},
        {"type": "input_audio", "input_audio": {"data": "UklG", "format": "wav"}},
        {"type": "file", "file": {"file_id": "file-1", "filename": "a.pdf"}},
        {"type": "file", "file": {"file_data": "data:application/pdf;base64,QUJD", "filename": "b.pdf"}},
    ]
    (msg,) = parse_messages([{"role": "user", "content": content}])
    assert msg.content[1:] == [
        ImageBlock(uri="data:image/png;base64,AAA", mime_type="image/png"),
        ResourceBlock(data="UklG", mime_type="audio/wav"),
        AttachmentBlock("file-1", filename="a.pdf"),
        ResourceBlock(data="QUJD", mime_type="application/pdf", filename="b.pdf"),
    ]
    out = render_messages([msg])
    assert out == [{"role": "user", "content": content}]
    PARAM.validate_python(out[0])


def test_approval_answered_with_a_tool_message_is_the_calls_signed_decision() -> None:
    arguments = orjson.dumps(
        {"tool_call_id": "call_1", "tool": "delete_file", "arguments": {"path": "a"}}
    ).decode()
    raw = [
        {"role": "user", "content": "delete a"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "ap_tok",
                    "type": "function",
                    "function": {"name": APPROVAL_TOOL, "arguments": arguments},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "ap_tok", "content": '{"approved": false, "reason": "no"}'},
    ]
    msgs = parse_messages(raw)
    assert msgs[1].content == [ToolCallBlock("call_1", "delete_file", {"path": "a"})]
    decision = decisions(msgs)["call_1"]
    assert (decision.approved, decision.interaction_token, decision.tool_name) == (
        False,
        "ap_tok",
        "delete_file",
    )
    assert decision.input == {"path": "a"}


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ("x", ("messages",)),
        ([1], ("messages", 0)),
        ([{"content": "x"}], ("messages", 0, "role")),
        ([{"role": "tool", "content": "x"}], ("messages", 0, "tool_call_id")),
        (
            [{"role": "assistant", "tool_calls": [{"function": {"name": "f"}}]}],
            ("messages", 0, "tool_calls", 0, "id"),
        ),
        ([{"role": "user", "content": 5}], ("messages", 0, "content")),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"id": "a", "function": {"name": APPROVAL_TOOL, "arguments": "[]"}}],
                }
            ],
            ("messages", 0, "tool_calls", 0, "function", "arguments"),
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "a", "function": {"name": APPROVAL_TOOL, "arguments": '{"tool_call_id": "c"}'}}
                    ],
                },
                {"role": "tool", "tool_call_id": "a", "content": "yes please"},
            ],
            ("messages", 1, "content"),
        ),
    ],
)
def test_bad_messages_name_the_field(raw: Any, loc: tuple) -> None:
    with pytest.raises(InputError) as info:
        parse_messages(raw)
    assert info.value.loc == loc


def test_request_envelope() -> None:
    request = parse_request(
        {
            "model": "demo",
            "messages": [{"role": "user", "content": "hi"}],
            "stream": True,
            "stream_options": {"include_usage": True},
            "user": "u1",
            "temperature": 0.2,
            "tools": [{"type": "function", "function": {"name": "pick"}}],
        }
    )
    assert (request.model, request.stream, request.include_usage, request.user) == ("demo", True, True, "u1")
    assert request.parameters == {
        "temperature": 0.2,
        "tools": [{"type": "function", "function": {"name": "pick"}}],
    }


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"messages": []}, ("model",)),
        ({"model": "demo"}, ("messages",)),
        ({"model": "demo", "messages": [], "stream": "yes"}, ("stream",)),
        (
            {"model": "demo", "messages": [], "stream_options": {"include_usage": 1}},
            ("stream_options", "include_usage"),
        ),
        ({"model": "demo", "messages": [], "metadata": []}, ("metadata",)),
    ],
)
def test_bad_request_names_the_field(body: dict, loc: tuple) -> None:
    with pytest.raises(InputError) as info:
        parse_request(body)
    assert info.value.loc == loc


def test_convert_knows_openai() -> None:
    out = convert([{"role": "user", "content": "hi"}], source="openai", target="vercel")
    assert out[0]["parts"] == [{"type": "text", "text": "hi"}]
    assert convert(out, source="vercel", target="openai") == [{"role": "user", "content": "hi"}]


# --------------------------------------------------------------------------- round-trip properties

IDS = st.text(st.characters(whitelist_categories=("Ll", "Nd")), min_size=1, max_size=6)
TEXT = st.text(max_size=12)
INT = st.integers(-(2**40), 2**40)
ARGS = st.dictionaries(IDS, INT | TEXT, max_size=3)
OUTPUT = st.text(max_size=8).filter(lambda s: s[:1] not in ("{", "[")) | st.dictionaries(IDS, INT, min_size=1)
CALL = st.builds(
    lambda i, n, a: {
        "id": i,
        "type": "function",
        "function": {"name": n, "arguments": orjson.dumps(a).decode()},
    },
    IDS,
    IDS,
    ARGS,
)
OPENAI_MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "system", "developer"]), "content": TEXT}),
    st.fixed_dictionaries(
        {"role": st.just("assistant")},
        optional={
            "reasoning_content": TEXT.filter(bool),
            "content": TEXT,
            "tool_calls": st.lists(CALL, min_size=1, max_size=2, unique_by=lambda c: c["id"]),
        },
    ).filter(lambda m: len(m) > 1),
    st.builds(
        lambda c, o: {
            "role": "tool",
            "tool_call_id": c,
            "content": o if isinstance(o, str) else orjson.dumps(o).decode(),
        },
        IDS,
        OUTPUT,
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(OPENAI_MESSAGE, max_size=8))
def test_openai_to_canonical_to_openai_is_the_identity(messages: list[dict[str, Any]]) -> None:
    out = render_messages(parse_messages(messages))
    assert [_norm(m) for m in out] == [_norm(m) for m in messages]
    for message in out:
        PARAM.validate_python(message)


def _norm(message: dict[str, Any]) -> dict[str, Any]:
    if message["role"] == "tool" and message["content"][:1] == "{":
        return {**message, "content": orjson.loads(message["content"])}
    return message


BLOCKS = st.one_of(
    TEXT.filter(bool).map(TextBlock),
    st.builds(ToolCallBlock, IDS, IDS, ARGS),
    st.builds(lambda i, o: ToolResultBlock(i, output=o), IDS, OUTPUT.filter(lambda o: o != "")),
    TEXT.filter(bool).map(ReasoningBlock),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(lambda t: Message("user", [TextBlock(t)]), TEXT),
            st.builds(lambda bs: Message("assistant", bs), st.lists(BLOCKS, min_size=1, max_size=4)),
        ),
        max_size=6,
    )
)
def test_canonical_to_openai_to_canonical_keeps_every_block_in_order(msgs: list[Message]) -> None:
    out = render_messages(msgs)
    for message in out:
        PARAM.validate_python(message)
    assert _blocks(parse_messages(out)) == _blocks(msgs)


def _blocks(msgs: list[Message]) -> list[Any]:
    out: list[Any] = []
    for m in msgs:
        side = "user" if m.role == "user" else "assistant"
        joined: Any = None  # the last block of this message (texts of one answer join by a blank line)
        for b in m.content:
            if isinstance(b, ToolResultBlock):
                b = ToolResultBlock(b.id, None, b.output if b.output is not UNSET else "")
            kind = type(b)
            if (
                kind in (TextBlock, ReasoningBlock)
                and out
                and out[-1][0] == side
                and type(out[-1][1]) is kind
            ):
                same_answer = side == "assistant" and joined is out[-1]
                glue = "\n\n" if same_answer and out[-1][1].text and b.text else ""
                out[-1] = (side, kind(out[-1][1].text + glue + b.text))
            elif kind in (TextBlock, ReasoningBlock) and not b.text:
                continue
            else:
                out.append((side, b))
            joined = out[-1] if out else None
    return out
