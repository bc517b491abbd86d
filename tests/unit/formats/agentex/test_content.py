"""``normalize_content``: the five Agentex content types (reference §1.2), defaults, and the exact
``loc`` of every field it rejects."""

from __future__ import annotations

from typing import Any

import pytest
from agentex.types import TaskMessageContent
from pydantic import TypeAdapter

from turnwire.errors import InputError
from turnwire.formats.agentex import normalize_content
from turnwire.formats.agentex.content import VALIDATORS

CLIENT_CONTENT = TypeAdapter(TaskMessageContent)


def error_of(obj: Any, loc: tuple = ("content",)) -> InputError:
    with pytest.raises(InputError) as info:
        normalize_content(obj, loc)
    return info.value


def test_the_validators_are_exactly_the_five_agentex_content_types() -> None:
    assert set(VALIDATORS) == {"text", "reasoning", "data", "tool_request", "tool_response"}


# --------------------------------------------------------------------------- valid content, defaults


def test_text_defaults_style_static_format_plain_and_attachments_null() -> None:
    assert normalize_content({"type": "text", "author": "user", "content": "hi"}) == {
        "type": "text",
        "author": "user",
        "style": "static",
        "format": "plain",
        "content": "hi",
        "attachments": None,
    }


@pytest.mark.parametrize("fmt", ["markdown", "plain", "code"])
def test_text_keeps_each_of_the_three_formats(fmt: str) -> None:
    out = normalize_content({"type": "text", "author": "agent", "content": "x", "format": fmt})
    assert out["format"] == fmt


def test_text_keeps_style_active_and_its_attachments_with_the_four_fields_only() -> None:
    attachment = {"file_id": "f1", "name": "a.png", "size": 10, "type": "image/png", "url": "dropped"}
    out = normalize_content(
        {"type": "text", "author": "agent", "style": "active", "content": "", "attachments": [attachment]}
    )
    assert out["style"] == "active"
    assert out["attachments"] == [{"file_id": "f1", "name": "a.png", "size": 10, "type": "image/png"}]


def test_text_attachment_size_may_be_any_number() -> None:
    item = {"file_id": "f", "name": "n", "size": 1.5, "type": "t"}
    out = normalize_content({"type": "text", "author": "user", "content": "", "attachments": [item]})
    assert out["attachments"][0]["size"] == 1.5


def test_text_keeps_an_empty_attachment_list_apart_from_null() -> None:
    out = normalize_content({"type": "text", "author": "user", "content": "", "attachments": []})
    assert out["attachments"] == []


def test_explicit_null_style_and_format_take_the_defaults() -> None:
    out = normalize_content({"type": "text", "author": "user", "content": "x", "style": None, "format": None})
    assert (out["style"], out["format"]) == ("static", "plain")


def test_reasoning_needs_only_a_summary_and_defaults_content_to_null() -> None:
    assert normalize_content({"type": "reasoning", "author": "agent", "summary": []}) == {
        "type": "reasoning",
        "author": "agent",
        "style": "static",
        "summary": [],
        "content": None,
    }


def test_reasoning_keeps_summary_and_content_lists() -> None:
    out = normalize_content({"type": "reasoning", "author": "agent", "summary": ["s"], "content": ["a", "b"]})
    assert (out["summary"], out["content"]) == (["s"], ["a", "b"])


def test_data_keeps_its_object_as_given() -> None:
    data = {"rows": [1, {"z": None}], "nested": {"k": "v"}}
    assert normalize_content({"type": "data", "author": "user", "data": data}) == {
        "type": "data",
        "author": "user",
        "style": "static",
        "data": data,
    }


def test_tool_request_keeps_id_name_and_arguments() -> None:
    raw = {"type": "tool_request", "author": "agent", "tool_call_id": "c1", "name": "search", "arguments": {}}
    assert normalize_content(raw) == {
        "type": "tool_request",
        "author": "agent",
        "style": "static",
        "tool_call_id": "c1",
        "name": "search",
        "arguments": {},
    }


def test_tool_response_defaults_is_error_to_null_and_accepts_any_content_even_null() -> None:
    raw = {"type": "tool_response", "author": "agent", "tool_call_id": "c1", "name": "s", "content": None}
    assert normalize_content(raw) == {
        "type": "tool_response",
        "author": "agent",
        "style": "static",
        "tool_call_id": "c1",
        "name": "s",
        "content": None,
        "is_error": None,
    }


@pytest.mark.parametrize("is_error", [True, False])
def test_tool_response_keeps_a_boolean_is_error(is_error: bool) -> None:
    raw = {"author": "agent", "tool_call_id": "c", "name": "n", "content": [1, "x"], "is_error": is_error}
    out = normalize_content(raw)
    assert (out["content"], out["is_error"]) == ([1, "x"], is_error)


def test_unknown_keys_are_dropped() -> None:
    raw = {"type": "data", "author": "agent", "data": {}, "id": "x", "streaming_status": "DONE", "extra": 1}
    assert set(normalize_content(raw)) == {"type", "author", "style", "data"}


def test_normalising_twice_changes_nothing() -> None:
    once = normalize_content({"type": "text", "author": "user", "content": "x"})
    assert normalize_content(once) == once


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ({"author": "agent", "tool_call_id": "c", "name": "n", "arguments": {}}, "tool_request"),
        ({"author": "agent", "tool_call_id": "c", "name": "n", "content": "out"}, "tool_response"),
        ({"author": "agent", "summary": []}, "reasoning"),
        ({"author": "agent", "data": {}}, "data"),
        ({"author": "user", "content": "hi"}, "text"),
    ],
)
def test_a_missing_type_is_inferred_from_the_required_fields(raw: dict, kind: str) -> None:
    # ``type`` is optional in the published schema (each member's discriminator has a default).
    assert normalize_content(raw)["type"] == kind


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "text", "author": "user", "content": "x"},
        {"type": "reasoning", "author": "agent", "summary": ["s"], "content": ["c"]},
        {"type": "data", "author": "agent", "data": {"a": 1}},
        {"type": "tool_request", "author": "agent", "tool_call_id": "c", "name": "n", "arguments": {"q": 1}},
        {"type": "tool_response", "author": "agent", "tool_call_id": "c", "name": "n", "content": "ok"},
    ],
    ids=lambda raw: raw["type"],
)
def test_normalised_content_is_unchanged_by_the_official_client_models(raw: dict) -> None:
    # Compared on the normalised form: the client's ReasoningContent defaults ``style`` to null
    # where the server (reference §1.2) and turnwire fill ``"static"``.
    out = normalize_content(raw)
    assert CLIENT_CONTENT.validate_python(out).model_dump(mode="json") == out


# --------------------------------------------------------------------------- invalid content


@pytest.mark.parametrize("obj", ["text", 3, None, [{"type": "text"}]])
def test_a_content_that_is_not_an_object_fails_at_the_given_loc(obj: Any) -> None:
    err = error_of(obj, ("messages", 2))
    assert (err.loc, err.type, err.msg) == (("messages", 2), "type", "must be an object")


def test_the_default_loc_is_content() -> None:
    with pytest.raises(InputError) as info:
        normalize_content("x")
    assert info.value.loc == ("content",)


def test_a_content_whose_type_cannot_be_inferred_fails_at_type() -> None:
    err = error_of({"author": "user", "content": ["not", "text"]})
    assert (err.loc, err.type, err.msg) == (("content", "type"), "missing", "field required")


@pytest.mark.parametrize("kind", ["image", "TEXT", 3, ["text"]])
def test_an_unknown_type_fails_at_type_and_lists_the_five(kind: Any) -> None:
    err = error_of({"type": kind, "author": "user", "content": "x"})
    assert err.loc == ("content", "type")
    assert "expected one of text, reasoning, data, tool_request, tool_response" in err.msg


@pytest.mark.parametrize(
    ("raw", "loc", "kind", "msg"),
    [
        # author and style: every type
        ({"type": "data", "data": {}}, ("author",), "missing", "field required"),
        (
            {"type": "data", "author": "assistant", "data": {}},
            ("author",),
            "invalid",
            "must be 'user' or 'agent'",
        ),
        (
            {"type": "data", "author": "system", "data": {}},
            ("author",),
            "invalid",
            "must be 'user' or 'agent'",
        ),
        ({"type": "data", "author": "user", "style": "bold", "data": {}}, ("style",), "invalid", None),
        # text
        ({"type": "text", "author": "user"}, ("content",), "missing", "field required"),
        ({"type": "text", "author": "user", "content": 3}, ("content",), "type", "must be a string"),
        ({"type": "text", "author": "user", "content": "x", "format": "html"}, ("format",), "invalid", None),
        (
            {"type": "text", "author": "user", "content": "x", "attachments": "f"},
            ("attachments",),
            "type",
            None,
        ),
        (
            {"type": "text", "author": "user", "content": "x", "attachments": {}},
            ("attachments",),
            "type",
            None,
        ),
        (
            {"type": "text", "author": "user", "content": "x", "attachments": [3]},
            ("attachments", 0),
            "type",
            None,
        ),
        # reasoning
        ({"type": "reasoning", "author": "agent"}, ("summary",), "missing", "field required"),
        ({"type": "reasoning", "author": "agent", "summary": None}, ("summary",), "type", None),
        ({"type": "reasoning", "author": "agent", "summary": "s"}, ("summary",), "type", None),
        ({"type": "reasoning", "author": "agent", "summary": ["s", 1]}, ("summary",), "type", None),
        ({"type": "reasoning", "author": "agent", "summary": [], "content": "c"}, ("content",), "type", None),
        (
            {"type": "reasoning", "author": "agent", "summary": [], "content": [None]},
            ("content",),
            "type",
            None,
        ),
        # data
        ({"type": "data", "author": "user"}, ("data",), "missing", "field required"),
        ({"type": "data", "author": "user", "data": [1]}, ("data",), "invalid", "must be an object"),
        ({"type": "data", "author": "user", "data": "x"}, ("data",), "invalid", "must be an object"),
        # tool_request
        (
            {"type": "tool_request", "author": "agent", "name": "n", "arguments": {}},
            ("tool_call_id",),
            "missing",
            None,
        ),
        (
            {"type": "tool_request", "author": "agent", "tool_call_id": 1, "name": "n", "arguments": {}},
            ("tool_call_id",),
            "type",
            "must be a string",
        ),
        (
            {"type": "tool_request", "author": "agent", "tool_call_id": "c", "arguments": {}},
            ("name",),
            "missing",
            None,
        ),
        (
            {"type": "tool_request", "author": "agent", "tool_call_id": "c", "name": "n"},
            ("arguments",),
            "missing",
            None,
        ),
        (
            {"type": "tool_request", "author": "agent", "tool_call_id": "c", "name": "n", "arguments": "{}"},
            ("arguments",),
            "invalid",
            "must be an object",
        ),
        # tool_response
        (
            {"type": "tool_response", "author": "agent", "tool_call_id": "c", "name": "n"},
            ("content",),
            "missing",
            None,
        ),
        (
            {"type": "tool_response", "author": "agent", "name": "n", "content": 1},
            ("tool_call_id",),
            "missing",
            None,
        ),
        (
            {"type": "tool_response", "author": "agent", "tool_call_id": "c", "content": 1},
            ("name",),
            "missing",
            None,
        ),
        (
            {
                "type": "tool_response",
                "author": "agent",
                "tool_call_id": "c",
                "name": "n",
                "content": 1,
                "is_error": 0,
            },
            ("is_error",),
            "type",
            "must be a boolean or null",
        ),
        (
            {
                "type": "tool_response",
                "author": "agent",
                "tool_call_id": "c",
                "name": "n",
                "content": 1,
                "is_error": "no",
            },
            ("is_error",),
            "type",
            "must be a boolean or null",
        ),
    ],
)
def test_each_invalid_field_fails_with_its_exact_loc(
    raw: dict, loc: tuple, kind: str, msg: str | None
) -> None:
    err = error_of(raw)
    assert err.loc == ("content", *loc)
    assert err.type == kind
    if msg is not None:
        assert err.msg == msg


@pytest.mark.parametrize("field", ["author", "style", "format"])
@pytest.mark.parametrize("value", [["user"], {"agent": 1}, 3])
def test_a_choice_field_of_the_wrong_json_type_is_an_input_error_not_a_crash(field: str, value: Any) -> None:
    # A list or object here once reached a frozenset membership test and raised TypeError (a 500).
    raw = {"type": "text", "author": "user", "content": "x"} | {field: value}
    err = error_of(raw)
    assert (err.loc, err.type) == (("content", field), "invalid")


GOOD_ATTACHMENT = {"file_id": "f", "name": "n", "size": 1, "type": "t"}


@pytest.mark.parametrize(
    ("change", "field", "kind"),
    [
        ({"file_id": None}, "file_id", "missing"),
        ({"file_id": 7}, "file_id", "type"),
        ({"name": None}, "name", "missing"),
        ({"type": ["image/png"]}, "type", "type"),
        ({"size": None}, "size", "type"),
        ({"size": "10"}, "size", "type"),
        ({"size": True}, "size", "type"),  # a bool is no number here, though Python says it is an int
    ],
)
def test_each_invalid_attachment_field_fails_at_its_index_and_name(
    change: dict, field: str, kind: str
) -> None:
    bad = {k: v for k, v in (GOOD_ATTACHMENT | change).items() if v is not None}
    raw = {"type": "text", "author": "user", "content": "x", "attachments": [GOOD_ATTACHMENT, bad]}
    err = error_of(raw, ("messages", 4, "content"))
    assert err.loc == ("messages", 4, "content", "attachments", 1, field)
    assert err.type == kind


def test_the_error_reads_as_a_path() -> None:
    err = error_of({"type": "text", "author": "user", "content": "x", "attachments": [{}]}, ("messages", 0))
    assert err.where == "messages[0].attachments[0].size"
