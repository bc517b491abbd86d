"""Agentex contents <-> canonical messages, both directions, one content type and block type at a time.

Agentex shapes follow the reference (§1.2): five content types, ``author`` user|agent, ``style``
static|active, text ``format`` markdown|plain|code and ``attachments [{file_id, name, size, type}]``,
reasoning ``summary`` + ``content`` lists, ``data`` an object, tool ``arguments`` an object.
"""

from __future__ import annotations

from typing import Any

import pytest
from agentex.types import TaskMessageContent
from pydantic import TypeAdapter

from turnwire.errors import InputError
from turnwire.formats import get_format
from turnwire.formats.agentex import (
    CONTENT_BLOCKS,
    FORMAT,
    content_to_message,
    normalize_content,
    parse_messages,
    render_message,
    render_messages,
)
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

CLIENT_CONTENT = TypeAdapter(TaskMessageContent)


def text(author: str = "user", content: str = "hi", **extra: Any) -> dict[str, Any]:
    base = {"type": "text", "author": author, "style": "static", "format": "plain", "content": content}
    return base | {"attachments": None} | extra


def reasoning(summary: list[str], content: list[str] | None, author: str = "agent") -> dict[str, Any]:
    return {"type": "reasoning", "author": author, "style": "static", "summary": summary, "content": content}


def data(value: dict[str, Any], author: str = "agent", style: str = "static") -> dict[str, Any]:
    return {"type": "data", "author": author, "style": style, "data": value}


def tool_request(call_id: str, name: str, arguments: dict[str, Any], author: str = "agent") -> dict[str, Any]:
    return {
        "type": "tool_request",
        "author": author,
        "style": "static",
        "tool_call_id": call_id,
        "name": name,
        "arguments": arguments,
    }


def tool_response(call_id: str, name: str, content: Any, is_error: bool | None = None) -> dict[str, Any]:
    return {
        "type": "tool_response",
        "author": "agent",
        "style": "static",
        "tool_call_id": call_id,
        "name": name,
        "content": content,
        "is_error": is_error,
    }


def render_one(msg: Message) -> dict[str, Any]:
    (content,) = render_message(msg)
    return content


# --------------------------------------------------------------------------- the table


def test_the_content_table_maps_each_agentex_type_to_its_canonical_block() -> None:
    assert {kind: row[0] for kind, row in CONTENT_BLOCKS.items()} == {
        "text": TextBlock,
        "reasoning": ReasoningBlock,
        "data": DataBlock,
        "tool_request": ToolCallBlock,
        "tool_response": ToolResultBlock,
    }


def test_the_format_is_registered_under_agentex_with_these_functions() -> None:
    fmt = get_format("agentex")
    assert fmt is FORMAT
    assert (fmt.parse_messages, fmt.render_messages) == (parse_messages, render_messages)


# --------------------------------------------------------------------------- content -> message


def test_user_text_is_a_user_message_with_one_text_block_and_no_metadata() -> None:
    assert content_to_message(text("user", "hi")) == Message("user", [TextBlock("hi")])


def test_agent_text_is_an_assistant_message() -> None:
    assert content_to_message(text("agent", "hello")) == Message("assistant", [TextBlock("hello")])


def test_the_id_given_is_the_message_id() -> None:
    assert content_to_message(text(), "665f0c1e2a").id == "665f0c1e2a"


def test_text_attachments_become_attachment_blocks_after_the_text() -> None:
    files = [
        {"file_id": "f1", "name": "a.png", "size": 10, "type": "image/png"},
        {"file_id": "f2", "name": "b.pdf", "size": 2048, "type": "application/pdf"},
    ]
    msg = content_to_message(text("user", "see files", attachments=files))
    assert msg.content == [
        TextBlock("see files"),
        AttachmentBlock("f1", filename="a.png", mime_type="image/png", size=10),
        AttachmentBlock("f2", filename="b.pdf", mime_type="application/pdf", size=2048),
    ]
    assert msg.metadata is None


@pytest.mark.parametrize(
    ("content", "meta"),
    [
        (text(format="markdown"), {"format": "markdown"}),
        (text(format="code"), {"format": "code"}),
        (text(style="active"), {"style": "active"}),
        (text(attachments=[]), {"attachments": []}),
        (data({}, author="agent", style="active"), {"style": "active"}),
    ],
)
def test_what_the_canonical_model_has_no_field_for_rides_in_metadata_agentex(
    content: dict, meta: dict
) -> None:
    assert content_to_message(content).metadata == {"agentex": meta}


def test_reasoning_joins_its_content_parts_with_newlines_and_keeps_the_summary() -> None:
    msg = content_to_message(reasoning(["short"], ["step one", "step two"]))
    assert msg.role == "assistant"
    assert msg.content == [ReasoningBlock("step one\nstep two", summary=["short"])]
    # the exact part list cannot be recovered from the joined text: it is kept
    assert msg.metadata == {"agentex": {"reasoning_content": ["step one", "step two"]}}


@pytest.mark.parametrize(
    ("parts", "block_text", "meta"),
    [
        (["one part"], "one part", None),
        (None, "", None),
        ([], "", {"agentex": {"reasoning_content": []}}),
        ([""], "", {"agentex": {"reasoning_content": [""]}}),
    ],
)
def test_reasoning_parts_are_kept_in_metadata_only_when_the_text_does_not_imply_them(
    parts: list[str] | None, block_text: str, meta: dict | None
) -> None:
    msg = content_to_message(reasoning([], parts))
    assert msg.content == [ReasoningBlock(block_text, summary=[])]
    assert msg.metadata == meta


def test_data_is_a_data_block_whose_role_follows_the_author() -> None:
    assert content_to_message(data({"k": [1, None]}, author="user")) == Message(
        "user", [DataBlock({"k": [1, None]})]
    )
    assert content_to_message(data({"k": 1}, author="agent")).role == "assistant"


@pytest.mark.parametrize("kind", [["image"], {"image": 1}, None, 7])
def test_data_whose_type_is_not_a_string_stays_data(kind: Any) -> None:
    # A file block stored as data has "type": "image" | "resource"; any other JSON "type" (a list
    # or an object cannot even be looked up) is the client's data, kept as it came.
    given = {"type": kind, "data": "aGk="}
    assert parse_messages([data(given, author="user")]) == [Message("user", [DataBlock(given)])]


def test_tool_request_is_a_tool_message_with_a_tool_call_block() -> None:
    assert content_to_message(tool_request("c1", "search", {"q": "x"})) == Message(
        "tool", [ToolCallBlock("c1", "search", {"q": "x"})]
    )


@pytest.mark.parametrize("is_error", [None, True, False])
def test_tool_response_is_a_tool_message_with_a_tool_result_block(is_error: bool | None) -> None:
    assert content_to_message(tool_response("c1", "search", {"hits": 2}, is_error)) == Message(
        "tool", [ToolResultBlock("c1", "search", {"hits": 2}, is_error)]
    )


def test_a_user_authored_tool_content_keeps_its_author_in_metadata() -> None:
    # Tool contents are role ``tool`` whoever wrote them; the default author of a tool message is agent.
    msg = content_to_message(tool_request("c1", "n", {}, author="user"))
    assert (msg.role, msg.metadata) == ("tool", {"agentex": {"author": "user"}})


# --------------------------------------------------------------------------- parse_messages


def test_parse_accepts_bare_contents() -> None:
    assert parse_messages([text("user", "a"), text("agent", "b")]) == [
        Message("user", [TextBlock("a")]),
        Message("assistant", [TextBlock("b")]),
    ]


def test_parse_accepts_task_messages_and_keeps_their_ids() -> None:
    task_message = {
        "id": "665f0c1e2a",
        "task_id": "t1",
        "content": text("agent", "hello"),
        "streaming_status": "DONE",
        "created_at": "2025-01-01T10:00:00.123000",
        "updated_at": None,
    }
    assert parse_messages([task_message]) == [Message("assistant", [TextBlock("hello")], id="665f0c1e2a")]


@pytest.mark.parametrize("bad_id", [None, 7, {"oid": "x"}])
def test_a_task_message_id_that_is_not_a_string_is_left_out(bad_id: Any) -> None:
    (msg,) = parse_messages([{"id": bad_id, "task_id": "t1", "content": text()}])
    assert msg.id is None


def test_a_bare_tool_response_with_object_content_is_not_taken_for_a_task_message() -> None:
    # It has ``author`` at the top: a TaskMessage never does.
    (msg,) = parse_messages([tool_response("c1", "n", {"type": "text", "author": "agent", "content": "x"})])
    assert msg.content == [
        ToolResultBlock("c1", "n", {"type": "text", "author": "agent", "content": "x"}, None)
    ]


def test_parse_fills_defaults_like_normalize_content() -> None:
    (msg,) = parse_messages([{"author": "user", "content": "hi"}])
    assert msg == Message("user", [TextBlock("hi")])


def test_parse_of_an_empty_list_is_empty() -> None:
    assert parse_messages([]) == []


@pytest.mark.parametrize("raw", [None, {"content": text()}, "hi", 3])
def test_parse_of_anything_but_a_list_fails_at_messages(raw: Any) -> None:
    with pytest.raises(InputError) as info:
        parse_messages(raw)
    assert (info.value.loc, info.value.type) == (("messages",), "type")


@pytest.mark.parametrize(
    ("item", "loc"),
    [
        ("nope", ("messages", 1)),
        ([text()], ("messages", 1)),
        ({"type": "text", "author": "assistant", "content": "x"}, ("messages", 1, "author")),
        ({"type": "text", "author": "user"}, ("messages", 1, "content")),
        ({"type": "video", "author": "user"}, ("messages", 1, "type")),
        (
            {"type": "tool_request", "author": "agent", "tool_call_id": "c", "name": "n", "arguments": []},
            ("messages", 1, "arguments"),
        ),
        (
            {
                "type": "text",
                "author": "user",
                "content": "x",
                "attachments": [{"file_id": "f", "size": 1, "type": "t"}],
            },
            ("messages", 1, "attachments", 0, "name"),
        ),
        (
            {"task_id": "t", "content": {"type": "data", "author": "user", "data": 3}},
            ("messages", 1, "content", "data"),
        ),
        (
            {"task_id": "t", "content": {"type": "text", "author": "bot", "content": "x"}},
            ("messages", 1, "content", "author"),
        ),
    ],
)
def test_bad_input_names_the_index_and_the_field(item: Any, loc: tuple) -> None:
    with pytest.raises(InputError) as info:
        parse_messages([text(), item])
    assert info.value.loc == loc


def test_roles_follow_the_author_and_tool_contents_are_role_tool() -> None:
    contents = [
        text("user"),
        text("agent"),
        reasoning([], None, author="agent"),
        reasoning([], None, author="user"),
        data({}, author="user"),
        data({}, author="agent"),
        tool_request("c", "n", {}),
        tool_request("c", "n", {}, author="user"),
        tool_response("c", "n", None),
    ]
    assert [m.role for m in parse_messages(contents)] == [
        "user",
        "assistant",
        "assistant",
        "user",
        "user",
        "assistant",
        "tool",
        "tool",
        "tool",
    ]


# --------------------------------------------------------------------------- message -> contents


@pytest.mark.parametrize(("role", "author"), [("user", "user"), ("assistant", "agent"), ("system", "agent")])
def test_text_renders_with_the_author_of_the_role_and_every_default_filled(role: str, author: str) -> None:
    # Agentex has only user and agent authors: every role but user speaks as the agent.
    assert render_one(Message(role, [TextBlock("hi")])) == text(author, "hi")


def test_an_author_and_style_in_metadata_apply_to_every_content_of_the_message() -> None:
    msg = Message(
        "tool",
        [ToolCallBlock("c", "n", {}), TextBlock("x")],
        metadata={"agentex": {"author": "user", "style": "active"}},
    )
    assert [(c["author"], c["style"]) for c in render_message(msg)] == [
        ("user", "active"),
        ("user", "active"),
    ]


def test_metadata_of_other_formats_is_ignored() -> None:
    msg = Message("user", [TextBlock("hi")], metadata={"agenta": {"x": 1}, "role": "human"})
    assert render_one(msg) == text("user", "hi")


def test_attachments_join_the_text_before_them_with_empty_defaults_for_missing_fields() -> None:
    msg = Message(
        "user",
        [
            TextBlock("look"),
            AttachmentBlock("f1", filename="a.png", mime_type="image/png", size=10),
            AttachmentBlock("f2"),
        ],
    )
    assert render_message(msg) == [
        text(
            "user",
            "look",
            attachments=[
                {"file_id": "f1", "name": "a.png", "size": 10, "type": "image/png"},
                {"file_id": "f2", "name": "", "size": 0, "type": ""},
            ],
        )
    ]


def test_an_attachment_with_no_text_before_it_gets_an_empty_text_of_its_own() -> None:
    msg = Message("user", [ReasoningBlock("r"), AttachmentBlock("f1", "a", "t", 1), TextBlock("after")])
    out = render_message(msg)
    assert [c["type"] for c in out] == ["reasoning", "text", "text"]
    assert out[1] == text("user", "", attachments=[{"file_id": "f1", "name": "a", "size": 1, "type": "t"}])
    assert out[2]["attachments"] is None


def test_each_text_keeps_its_own_attachments() -> None:
    msg = Message("user", [TextBlock("a"), AttachmentBlock("f1"), TextBlock("b"), AttachmentBlock("f2")])
    assert [[a["file_id"] for a in c["attachments"]] for c in render_message(msg)] == [["f1"], ["f2"]]


def test_metadata_format_and_empty_attachments_come_back_on_the_text() -> None:
    msg = Message(
        "assistant", [TextBlock("x = 1")], metadata={"agentex": {"format": "code", "attachments": []}}
    )
    assert render_one(msg) == text("agent", "x = 1", format="code", attachments=[])


def test_reasoning_renders_its_text_as_one_part_and_its_summary() -> None:
    assert render_one(Message("assistant", [ReasoningBlock("a\nb", summary=["s"])])) == reasoning(
        ["s"], ["a\nb"]
    )


def test_reasoning_without_text_or_summary_renders_null_content_and_an_empty_summary() -> None:
    assert render_one(Message("assistant", [ReasoningBlock()])) == reasoning([], None)


def test_reasoning_parts_from_metadata_are_used_while_they_still_match_the_text() -> None:
    meta = {"agentex": {"reasoning_content": ["a", "b"]}}
    assert render_one(Message("assistant", [ReasoningBlock("a\nb")], metadata=meta))["content"] == ["a", "b"]
    # an edited text makes the stored parts stale: the text wins
    assert render_one(Message("assistant", [ReasoningBlock("edited")], metadata=meta))["content"] == [
        "edited"
    ]


def test_an_unnamed_object_data_block_renders_as_is() -> None:
    assert render_one(Message("assistant", [DataBlock({"k": 1})])) == data({"k": 1})


@pytest.mark.parametrize(
    ("block", "wrapped"),
    [
        (DataBlock({"k": 1}, name="rows"), {"name": "rows", "value": {"k": 1}}),
        (DataBlock([1, 2], name="rows"), {"name": "rows", "value": [1, 2]}),
        (DataBlock([1, 2]), {"name": None, "value": [1, 2]}),
        (DataBlock("text"), {"name": None, "value": "text"}),
        (DataBlock(None), {"name": None, "value": None}),
    ],
)
def test_named_or_non_object_data_is_wrapped_as_name_and_value(block: DataBlock, wrapped: dict) -> None:
    # DataContent.data must be an object and has no name field: wrap rather than lose either.
    assert render_one(Message("assistant", [block]))["data"] == wrapped


@pytest.mark.parametrize(
    ("given", "arguments"),
    [
        ({"q": 1}, {"q": 1}),
        ('{"q": 1}', {"q": 1}),
        ("not json", {"input": "not json"}),
        ("[1, 2]", {"input": [1, 2]}),
        ([1, 2], {"input": [1, 2]}),
        (3, {"input": 3}),
        (None, {}),
    ],
)
def test_tool_call_input_always_renders_as_an_arguments_object(given: Any, arguments: dict) -> None:
    out = render_one(Message("assistant", [ToolCallBlock("c1", "search", given)]))
    assert out == tool_request("c1", "search", arguments)


def test_a_tool_call_without_id_or_name_renders_empty_strings() -> None:
    out = render_one(Message("assistant", [ToolCallBlock()]))
    assert (out["tool_call_id"], out["name"], out["arguments"]) == ("", "", {})


@pytest.mark.parametrize(
    ("block", "content", "is_error"),
    [
        (ToolResultBlock("c1", "n", "ok", False), "ok", False),
        (ToolResultBlock("c1", "n", {"rows": []}, None), {"rows": []}, None),
        (ToolResultBlock("c1", "n", None, True), None, True),
        (ToolResultBlock("c1", "n", UNSET, None), None, None),
    ],
)
def test_tool_result_renders_its_output_as_content_and_keeps_is_error(
    block: ToolResultBlock, content: Any, is_error: bool | None
) -> None:
    assert render_one(Message("tool", [block])) == tool_response("c1", "n", content, is_error)


@pytest.mark.parametrize(
    ("block", "value"),
    [
        (ImageBlock(uri="https://x/i.png"), {"type": "image", "uri": "https://x/i.png"}),
        (
            ImageBlock(data="aGk=", mime_type="image/png", filename="i.png", size=2),
            {"type": "image", "data": "aGk=", "mime_type": "image/png", "filename": "i.png", "size": 2},
        ),
        (
            ResourceBlock(uri="https://x/a.pdf", mime_type="application/pdf"),
            {"type": "resource", "uri": "https://x/a.pdf", "mime_type": "application/pdf"},
        ),
        (
            UnknownBlock({"type": "source-url", "url": "https://x"}),
            {"type": "source-url", "url": "https://x"},
        ),
    ],
)
def test_blocks_agentex_has_no_type_for_become_data_contents(block: Any, value: dict) -> None:
    assert render_one(Message("user", [block])) == data(value, author="user")


def test_an_unknown_block_rendered_as_data_is_a_copy_of_its_raw_dict() -> None:
    raw = {"type": "x", "k": 1}
    out = render_one(Message("user", [UnknownBlock(raw)]))
    out["data"]["k"] = 2
    assert raw == {"type": "x", "k": 1}


def test_a_message_with_n_blocks_renders_n_contents_in_block_order() -> None:
    msg = Message(
        "assistant",
        [
            TextBlock("a"),
            AttachmentBlock("f1"),
            ReasoningBlock("r"),
            ToolCallBlock("c", "n", '{"x": 1}'),
            ToolResultBlock("c", "n"),
            DataBlock([1], name="rows"),
            ImageBlock(uri="http://x/i.png"),
        ],
    )
    out = render_messages([msg])
    assert [c["type"] for c in out] == ["text", "reasoning", "tool_request", "tool_response", "data", "data"]
    for content in out:
        CLIENT_CONTENT.validate_python(content)  # every content is valid for the official client


def test_a_message_without_blocks_renders_no_content() -> None:
    assert render_message(Message("assistant")) == []


def test_render_messages_concatenates_the_contents_of_every_message_in_order() -> None:
    msgs = [Message("user", [TextBlock("q")]), Message("assistant", [ReasoningBlock("r"), TextBlock("a")])]
    assert [(c["type"], c["author"]) for c in render_messages(msgs)] == [
        ("text", "user"),
        ("reasoning", "agent"),
        ("text", "agent"),
    ]


# --------------------------------------------------------------------------- both directions

NORMALISED = [
    text("user", "hi"),
    text(
        "agent",
        "x = 1",
        style="active",
        format="code",
        attachments=[{"file_id": "f", "name": "a.png", "size": 10, "type": "image/png"}],
    ),
    text("user", "", attachments=[]),
    text("agent", "**b**", format="markdown"),
    reasoning(["s"], ["a", "b"]),
    reasoning([], None),
    reasoning([], [""]),
    reasoning(["x"], [], author="user"),
    data({"k": [1, {"z": None}]}, author="user"),
    data({}, author="agent", style="active"),
    tool_request("c", "n", {"q": 1}),
    tool_request("c", "n", {}, author="user"),
    tool_response("c", "n", None, True),
    tool_response("c", "n", [1, "two"]),
    tool_response("c", "n", {"approved": True}, False),
]


@pytest.mark.parametrize("content", NORMALISED, ids=lambda c: c["type"])
def test_normalised_content_round_trips_exactly(content: dict) -> None:
    assert normalize_content(content) == content
    assert render_messages(parse_messages([content])) == [content]
    # and what is rendered validates against the official client's own models, unchanged
    assert CLIENT_CONTENT.validate_python(content).model_dump(mode="json") == content


def test_task_messages_parsed_and_rendered_keep_their_ids_and_contents() -> None:
    records = [{"id": f"m{i}", "task_id": "t", "content": c} for i, c in enumerate(NORMALISED)]
    msgs = parse_messages(records)
    assert [m.id for m in msgs] == [f"m{i}" for i in range(len(NORMALISED))]
    assert render_messages(msgs) == NORMALISED


# --------------------------------------------------------------------------- blocks stored as data come back


@pytest.mark.parametrize(
    "block",
    [
        ImageBlock(uri="https://x/i.png", mime_type="image/png"),
        ImageBlock(data="aGk=", mime_type="image/png", filename="i.png", size=2),
        ResourceBlock(uri="https://x/a.pdf", mime_type="application/pdf", filename="a.pdf"),
        ResourceBlock(data="YSxi", mime_type="text/csv", size=0),
    ],
)
def test_an_image_or_resource_stored_as_data_reads_back_as_the_same_block(block: Any) -> None:
    # The store keeps every conversation as Agentex contents: a user's image must still be an
    # image when the history is read back on the next turn.
    msg = Message("user", [block], id="m1")
    assert parse_messages([{"id": "m1", "task_id": "t", "content": render_one(msg)}]) == [msg]


@pytest.mark.parametrize(
    "block",
    [DataBlock({"k": 1}, name="rows"), DataBlock([1, 2], name="rows"), DataBlock([1, 2]), DataBlock("x")],
)
def test_named_or_non_object_data_reads_back_unwrapped(block: DataBlock) -> None:
    msg = Message("assistant", [block])
    assert content_to_message(render_one(msg)) == msg


@pytest.mark.parametrize(
    "value",
    [
        {"type": "image"},
        {"type": "image", "uri": 3},
        {"type": "image", "uri": "u", "alt": "extra key"},
        {"type": "resource", "data": "YQ==", "size": True},
        {"type": "resource", "data": "YQ==", "mime_type": None},
        {"type": "video", "uri": "u"},
        {"name": None, "value": {"k": 1}},
        {"name": 3, "value": 1},
        {"name": "n", "value": 1, "more": 2},
    ],
)
def test_data_that_only_looks_like_a_stored_block_stays_data_unchanged(value: dict) -> None:
    msg = content_to_message(data(value))
    assert msg.content == [DataBlock(value)]
    assert render_one(msg) == data(value)
