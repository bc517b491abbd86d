"""Properties of the Agentex format over generated input: both round trips, and parsing arbitrary JSON."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import orjson
from agentex.types import TaskMessageContent
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter

from turnwire.errors import InputError
from turnwire.formats.agentex import normalize_content, parse_messages, render_message, render_messages
from turnwire.model import (
    AttachmentBlock,
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)

SETTINGS = settings(max_examples=200, deadline=None)
CLIENT_CONTENT = TypeAdapter(TaskMessageContent)

# what can travel as JSON: no NaN/infinity, integers within 64 bits (orjson's range)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
json_ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
json_scalars = st.none() | st.booleans() | json_ints | finite_floats | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=6), json_values, max_size=4)
short_text = st.text(max_size=10)
opt_size = st.none() | st.integers(min_value=0, max_value=10**12)
styles = st.sampled_from(["static", "active"])

# ------------------------------------------------------------------------- canonical -> agentex -> canonical
# What Agentex can express: one content per message, so one block per message (a text may carry
# its attachments); ``author`` user|agent, so role user or assistant, and ``tool`` for tool blocks;
# images, resources and named data as the data contents they are stored as; tool ``arguments`` an
# object; ids and names strings. What the model has no field for rides in ``metadata["agentex"]``
# exactly as ``content_to_message`` puts it.


def _message(role: str, blocks: list[Any], msg_id: str | None, meta: dict[str, Any]) -> Message:
    return Message(role, blocks, id=msg_id, metadata={"agentex": meta} if meta else None)


def _style_meta(style: str) -> dict[str, Any]:
    return {"style": style} if style != "static" else {}


attachments = st.lists(st.builds(AttachmentBlock, short_text, short_text, short_text, st.integers(0, 10**12)))


@st.composite
def text_messages(draw: st.DrawFn) -> Message:
    files = draw(attachments)
    meta = _style_meta(draw(styles))
    fmt = draw(st.sampled_from(["plain", "markdown", "code"]))
    if fmt != "plain":
        meta["format"] = fmt
    if not files and draw(st.booleans()):
        meta["attachments"] = []  # an explicit empty list, kept apart from null
    role = draw(st.sampled_from(["user", "assistant"]))
    return _message(role, [TextBlock(draw(short_text)), *files], draw(st.none() | short_text), meta)


@st.composite
def reasoning_messages(draw: st.DrawFn) -> Message:
    meta = _style_meta(draw(styles))
    if draw(st.booleans()):
        text = draw(short_text)  # parts implied by the text: nothing extra to keep
    else:
        parts = draw(st.none() | st.lists(short_text, max_size=4))
        text = "\n".join(parts or ())
        if parts != ([text] if text else None):
            meta["reasoning_content"] = parts
    summary = draw(st.lists(short_text, max_size=3))
    role = draw(st.sampled_from(["user", "assistant"]))
    return _message(role, [ReasoningBlock(text, summary=summary)], draw(st.none() | short_text), meta)


opt_text = st.none() | short_text
file_blocks = st.one_of(
    *(
        st.builds(cls, data=short_text, uri=opt_text, mime_type=opt_text, filename=opt_text, size=opt_size)
        | st.builds(cls, data=opt_text, uri=short_text, mime_type=opt_text, filename=opt_text, size=opt_size)
        for cls in (ImageBlock, ResourceBlock)
    )
)
# An unnamed object with exactly the keys ``name`` and ``value`` reads as the wrapped form of a
# named block: the one data shape Agentex cannot tell apart.
unnamed_objects = json_objects.filter(lambda d: d.keys() != {"name", "value"})
data_blocks = (
    st.builds(DataBlock, unnamed_objects)
    | st.builds(DataBlock, json_values, short_text)
    | st.builds(DataBlock, json_values.filter(lambda v: not isinstance(v, dict)))
)


@st.composite
def data_messages(draw: st.DrawFn) -> Message:
    role = draw(st.sampled_from(["user", "assistant"]))
    block = draw(data_blocks | file_blocks)
    return _message(role, [block], draw(st.none() | short_text), _style_meta(draw(styles)))


@st.composite
def tool_messages(draw: st.DrawFn) -> Message:
    if draw(st.booleans()):
        block: Any = ToolCallBlock(draw(short_text), draw(short_text), draw(json_objects))
    else:
        block = ToolResultBlock(
            draw(short_text), draw(short_text), draw(json_values), draw(st.none() | st.booleans())
        )
    meta = _style_meta(draw(styles))
    if draw(st.booleans()):
        meta["author"] = "user"  # the default author of a tool message is agent
    return _message("tool", [block], draw(st.none() | short_text), meta)


expressible_messages = st.one_of(text_messages(), reasoning_messages(), data_messages(), tool_messages())


def _as_task_messages(messages: list[Message]) -> list[dict[str, Any]]:
    out = []
    for msg in messages:
        (content,) = render_message(msg)
        out.append({"id": msg.id, "task_id": "task", "content": content})
    return out


@SETTINGS
@given(st.lists(expressible_messages, max_size=5))
def test_canonical_to_agentex_to_canonical_is_identity_on_what_agentex_expresses(messages):
    wire = orjson.loads(orjson.dumps(_as_task_messages(messages)))
    assert parse_messages(wire) == messages


@SETTINGS
@given(expressible_messages)
def test_every_rendered_content_is_normalised_and_valid_for_the_official_client(message):
    for content in render_message(message):
        assert normalize_content(content) == content
        assert CLIENT_CONTENT.validate_python(content).model_dump(mode="json") == content


# --------------------------------------------------------------------------- agentex -> canonical -> agentex

authors = st.sampled_from(["user", "agent"])
contents = st.one_of(
    st.fixed_dictionaries(
        {"type": st.just("text"), "author": authors, "content": short_text},
        optional={
            "style": styles,
            "format": st.sampled_from(["markdown", "plain", "code"]),
            "attachments": st.none()
            | st.lists(
                st.fixed_dictionaries(
                    {
                        "file_id": short_text,
                        "name": short_text,
                        "size": st.integers(0, 10**9),
                        "type": short_text,
                    }
                ),
                max_size=3,
            ),
        },
    ),
    st.fixed_dictionaries(
        {"type": st.just("reasoning"), "author": authors, "summary": st.lists(short_text, max_size=3)},
        optional={"style": styles, "content": st.none() | st.lists(short_text, max_size=4)},
    ),
    st.fixed_dictionaries(
        {"type": st.just("data"), "author": authors, "data": json_objects}, optional={"style": styles}
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("tool_request"),
            "author": authors,
            "tool_call_id": short_text,
            "name": short_text,
            "arguments": json_objects,
        },
        optional={"style": styles},
    ),
    st.fixed_dictionaries(
        {
            "type": st.just("tool_response"),
            "author": authors,
            "tool_call_id": short_text,
            "name": short_text,
            "content": json_values,
        },
        optional={"style": styles, "is_error": st.none() | st.booleans()},
    ),
)


@SETTINGS
@given(st.lists(contents, max_size=5))
def test_agentex_to_canonical_to_agentex_is_identity_on_normalised_contents(raw):
    normalised = [normalize_content(c) for c in raw]
    assert render_messages(parse_messages(normalised)) == normalised


# --------------------------------------------------------------------------- parse never crashes

content_keys = st.sampled_from(
    [
        "type",
        "author",
        "style",
        "format",
        "content",
        "attachments",
        "summary",
        "data",
        "tool_call_id",
        "name",
        "arguments",
        "is_error",
        "id",
        "task_id",
    ]
)
content_values = json_values | st.sampled_from(
    ["text", "reasoning", "data", "tool_request", "tool_response", "user", "agent", "static", "plain"]
)
contentish = st.dictionaries(
    content_keys, content_values | st.dictionaries(content_keys, content_values), max_size=6
)


@SETTINGS
@given(json_values | st.lists(contentish | json_values, max_size=5))
def test_parse_messages_raises_nothing_but_input_error_on_arbitrary_json(raw):
    try:
        parsed = parse_messages(raw)
    except InputError as exc:
        assert exc.loc and exc.loc[0] == "messages"
        return
    # whatever parses renders to valid contents, and re-parsing the rendering is a fixed point
    rendered = render_messages(parsed)
    orjson.dumps(rendered)
    assert parse_messages(rendered) == [replace(msg, id=None) for msg in parsed]  # bare contents carry no id
