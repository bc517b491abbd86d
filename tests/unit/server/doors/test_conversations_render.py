"""``render_conversation``: a task's stored TaskMessages as the conversation in one wire format.

Records are what the store holds (Agentex TaskMessages, reference §1.1); expected Vercel shapes
follow the UIMessage tool-part states of the AI SDK (approval-requested carries ``approval.id``,
an approved and executed call ends ``output-available`` with ``approval{id, approved: true}``),
expected Agenta shapes follow the Agenta block form (``tool_call{toolCallId, toolName, input}``);
a message keeps its stored id (the first record of a joined answer gives its id).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from turnwire.conversations.planning import INTERRUPTED_REASON, interrupted_content
from turnwire.conversations.rendered import INTERRUPTED_PART, render_conversation
from turnwire.errors import UnknownFormatError
from turnwire.formats import get_format, names
from turnwire.store.base import StoredMessage

TASK = "task-1"


def record(id: str, content: dict[str, Any]) -> Any:
    """A stored TaskMessage; one the test notes (under ``content["turnwire"]``) is a
    ``StoredMessage`` with that note beside the content, as the store keeps it."""
    if "turnwire" not in content:
        return {"id": id, "task_id": TASK, "content": content, "streaming_status": "DONE"}
    note = content["turnwire"]
    content = {k: v for k, v in content.items() if k != "turnwire"}
    stored = {"id": id, "task_id": TASK, "content": content, "streaming_status": "DONE"}
    return StoredMessage(stored, note, None)


def text(author: str, content: str) -> dict[str, Any]:
    return {
        "type": "text",
        "author": author,
        "style": "static",
        "format": "plain",
        "content": content,
        "attachments": None,
    }


def call(call_id: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "tool_request",
        "author": "agent",
        "style": "static",
        "tool_call_id": call_id,
        "name": name,
        "arguments": arguments,
    }


def result(call_id: str, name: str, content: Any, is_error: bool | None = None) -> dict[str, Any]:
    return {
        "type": "tool_response",
        "author": "agent",
        "style": "static",
        "tool_call_id": call_id,
        "name": name,
        "content": content,
        "is_error": is_error,
    }


def request(token: str, kind: str, payload: dict[str, Any]) -> dict[str, Any]:
    """An interaction request as the encoder stores it (a data content, see ``event_content``)."""
    data = {"type": "interaction_request", "id": token, "kind": kind, "payload": payload}
    return {"type": "data", "author": "agent", "style": "static", "data": data}


def approval(token: str, call_id: str) -> dict[str, Any]:
    return request(token, "user_approval", {"toolCallId": call_id, "toolName": "delete_file"})


PAUSED = [
    record("m1", text("user", "delete a.txt")),
    record("m2", text("agent", "I will delete a.txt.")),
    record("m3", call("c1", "delete_file", {"path": "a.txt"})),
    record("m4", approval("tok-1", "c1")),
]
"""A turn paused on an approval: the call ``c1`` waits for a decision."""

ANSWERED = [
    *PAUSED,
    record("m5", result("c1", "delete_file", {"approved": True, "interactionToken": "tok-1"})),
    record("m6", result("c1", "delete_file", "a.txt deleted", False)),
    record("m7", text("agent", "Deleted a.txt.")),
]
"""The same conversation after the user approved and the next turn ran the tool."""


# --------------------------------------------------------------------------- agentex


def test_agentex_returns_the_stored_task_messages_unchanged() -> None:
    out = render_conversation(ANSWERED, "agentex")
    assert out == ANSWERED
    assert out is not ANSWERED  # a copy: the caller may not mutate the store's list


# --------------------------------------------------------------------------- vercel


def test_vercel_joins_text_and_tool_call_of_one_answer_into_one_assistant_message() -> None:
    out = render_conversation(PAUSED[:3], "vercel")
    assert out == [
        {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "delete a.txt"}]},
        {
            "id": "m2",
            "role": "assistant",
            "parts": [
                {"type": "text", "text": "I will delete a.txt."},
                {
                    "type": "tool-delete_file",
                    "toolCallId": "c1",
                    "state": "input-available",
                    "input": {"path": "a.txt"},
                },
            ],
        },
    ]


def test_vercel_renders_a_pending_approval_as_approval_requested_with_its_id() -> None:
    out = render_conversation(PAUSED, "vercel")
    assert [m["id"] for m in out] == ["m1", "m2"]  # the request itself is no message
    assert out[1]["parts"][1] == {
        "type": "tool-delete_file",
        "toolCallId": "c1",
        "state": "approval-requested",
        "input": {"path": "a.txt"},
        "approval": {"id": "tok-1"},
    }


def test_vercel_joins_an_answer_split_by_an_approval_and_does_not_mark_the_answered_call() -> None:
    out = render_conversation(ANSWERED, "vercel")
    assert out == [
        {"id": "m1", "role": "user", "parts": [{"type": "text", "text": "delete a.txt"}]},
        {
            "id": "m2",
            "role": "assistant",
            "parts": [
                {"type": "text", "text": "I will delete a.txt."},
                {
                    "type": "tool-delete_file",
                    "toolCallId": "c1",
                    "state": "output-available",
                    "input": {"path": "a.txt"},
                    "approval": {"id": "tok-1", "approved": True},
                    "output": "a.txt deleted",
                },
                {"type": "text", "text": "Deleted a.txt."},
            ],
        },
    ]


def test_vercel_renders_a_denied_call_output_denied_not_approval_requested() -> None:
    records = [
        *PAUSED,
        record("m5", result("c1", "delete_file", {"approved": False, "interactionToken": "tok-1"})),
    ]
    part = render_conversation(records, "vercel")[1]["parts"][1]
    assert part["state"] == "output-denied"
    assert part["approval"] == {"id": "tok-1", "approved": False}


def test_vercel_marks_only_the_calls_still_waiting_among_several() -> None:
    records = [
        record("m1", text("user", "delete a.txt and b.txt")),
        record("m2", call("c1", "delete_file", {"path": "a.txt"})),
        record("m3", call("c2", "delete_file", {"path": "b.txt"})),
        record("m4", approval("tok-1", "c1")),
        record("m5", approval("tok-2", "c2")),
        record("m6", result("c1", "delete_file", {"approved": True, "interactionToken": "tok-1"})),
    ]
    parts = render_conversation(records, "vercel")[1]["parts"]
    assert [(p["toolCallId"], p["state"], p["approval"]) for p in parts] == [
        ("c1", "approval-responded", {"id": "tok-1", "approved": True}),
        ("c2", "approval-requested", {"id": "tok-2"}),
    ]


def test_vercel_does_not_mark_a_call_for_a_user_input_request() -> None:
    records = [
        *PAUSED[:3],
        record("m4", request("input_1", "user_input", {"toolCallId": "c1", "prompt": "Which file?"})),
    ]
    part = render_conversation(records, "vercel")[1]["parts"][1]
    assert part["state"] == "input-available"
    assert "approval" not in part


def test_vercel_renders_an_interruption_marker_as_a_data_turnwire_interrupted_part() -> None:
    marker = interrupted_content(["m2"])
    records = [record("m1", text("user", "hi")), record("m2", text("agent", "Hel")), record("m3", marker)]
    out = render_conversation(records, "vercel")
    assert INTERRUPTED_PART == "turnwire-interrupted"
    assert out[1] == {
        "id": "m2",
        "role": "assistant",
        "parts": [
            {"type": "text", "text": "Hel"},
            {
                "type": "data-turnwire-interrupted",
                "data": {
                    "type": "turnwire.interrupted",
                    "message_ids": ["m2"],
                    "reason": INTERRUPTED_REASON,
                },
            },
        ],
    }


def test_vercel_keeps_user_messages_apart_between_answers() -> None:
    records = [
        record("m1", text("user", "one")),
        record("m2", text("agent", "1")),
        record("m3", text("user", "two")),
        record("m4", text("agent", "2")),
    ]
    out = render_conversation(records, "vercel")
    assert [(m["id"], m["role"], m["parts"][0]["text"]) for m in out] == [
        ("m1", "user", "one"),
        ("m2", "assistant", "1"),
        ("m3", "user", "two"),
        ("m4", "assistant", "2"),
    ]


def test_vercel_renders_an_error_result_output_error_with_its_text() -> None:
    records = [
        record("m1", text("user", "read x")),
        record("m2", call("c1", "read_file", {"path": "x"})),
        record("m3", result("c1", "read_file", "no such file", True)),
    ]
    part = render_conversation(records, "vercel")[1]["parts"][0]
    assert part == {
        "type": "tool-read_file",
        "toolCallId": "c1",
        "state": "output-error",
        "input": {"path": "x"},
        "errorText": "no such file",
    }


# --------------------------------------------------------------------------- agenta


def test_agenta_joins_assistant_text_and_tool_call_and_keeps_each_result_its_own_tool_message() -> None:
    out = render_conversation(ANSWERED, "agenta")
    assert out == [
        {"role": "user", "content": "delete a.txt", "id": "m1"},
        {
            "role": "assistant",
            "id": "m2",
            "content": [
                {"type": "text", "text": "I will delete a.txt."},
                {
                    "type": "tool_call",
                    "toolCallId": "c1",
                    "toolName": "delete_file",
                    "input": {"path": "a.txt"},
                },
            ],
        },
        {
            "role": "tool",
            "id": "m5",
            "content": [
                {
                    "type": "tool_result",
                    "toolCallId": "c1",
                    "toolName": "delete_file",
                    "output": {"approved": True, "interactionToken": "tok-1"},
                }
            ],
        },
        {
            "role": "tool",
            "id": "m6",
            "content": [
                {
                    "type": "tool_result",
                    "toolCallId": "c1",
                    "toolName": "delete_file",
                    "output": "a.txt deleted",
                    "isError": False,
                }
            ],
        },
        {"role": "assistant", "content": "Deleted a.txt.", "id": "m7"},
    ]


def test_agenta_leaves_interaction_requests_out() -> None:
    out = render_conversation(PAUSED, "agenta")
    assert [m["role"] for m in out] == ["user", "assistant"]


def test_agenta_keeps_an_interrupted_partial_answer_as_one_assistant_message() -> None:
    records = [
        record("m1", text("user", "hi")),
        record("m2", text("agent", "Hel")),
        record("m3", interrupted_content(["m2"])),
    ]
    # Agenta messages have no block for structured data: the marker cannot be shown there.
    assert render_conversation(records, "agenta") == [
        {"role": "user", "content": "hi", "id": "m1"},
        {"role": "assistant", "content": "Hel", "id": "m2"},
    ]


# --------------------------------------------------------------------------- files


IMAGE = {
    "type": "data",
    "author": "user",
    "style": "static",
    "data": {"type": "image", "uri": "https://x/a.png", "mime_type": "image/png"},
}
"""A user's image as the store keeps it (Agentex has no image content: a data content of this shape)."""


def test_a_stored_image_renders_as_a_vercel_file_part() -> None:
    out = render_conversation([record("m1", text("user", "see")), record("m2", IMAGE)], "vercel")
    assert out[1] == {
        "id": "m2",
        "role": "user",
        "parts": [{"type": "file", "mediaType": "image/png", "url": "https://x/a.png"}],
    }


def test_a_stored_image_renders_as_an_agenta_image_block() -> None:
    out = render_conversation([record("m2", IMAGE)], "agenta")
    assert out == [
        {
            "role": "user",
            "id": "m2",
            "content": [{"type": "image", "uri": "https://x/a.png", "mimeType": "image/png"}],
        }
    ]


# --------------------------------------------------------------------------- formats


def test_the_stored_form_is_agentex_alone() -> None:
    assert [name for name in names() if get_format(name).stored] == ["agentex"]


@pytest.mark.parametrize("fmt", ["bogus", "agentx", ""])
def test_an_unknown_format_is_an_unknown_format_error_listing_the_known_ones(fmt: str) -> None:
    with pytest.raises(UnknownFormatError) as info:
        render_conversation(PAUSED, fmt)
    assert info.value.known == names()


def test_format_names_are_case_insensitive() -> None:
    assert render_conversation(PAUSED, "Vercel") == render_conversation(PAUSED, "vercel")


@pytest.mark.parametrize("fmt", names())
def test_every_registered_format_renders_a_paused_conversation_as_json(fmt: str) -> None:
    out = render_conversation(PAUSED, fmt)
    assert isinstance(out, list) and out
    assert json.loads(json.dumps(out)) == out
    assert render_conversation([], fmt) == []


def _turn(content: dict[str, Any], turn: str = "t1") -> dict[str, Any]:
    """``content`` as a turn writes it: noted with its turn and the answer's message id."""
    return {**content, "turnwire": {"turn": turn, "message_id": f"msg-{turn}"}}


def test_vercel_shows_a_turns_requests_as_the_data_parts_its_stream_sent_where_it_sent_them() -> None:
    records = [
        record("m1", text("user", "go")),
        record("m2", _turn(request("q_0", "choose", {"options": [1, 2]}))),  # before any content
        record("m3", _turn(text("agent", "Which one?"))),
        record("m4", _turn(request("input_1", "user_input", {"prompt": "Which?"}))),
        record("m5", _turn(call("c1", "delete_file", {"path": "a"}))),
        record("m6", _turn(request("tok", "user_approval", {"toolCallId": "c1", "manifest": {"files": 1}}))),
    ]
    (_, answer) = render_conversation(records, "vercel", "s1")
    assert answer["parts"] == [
        {"type": "step-start"},
        {"type": "data-interaction", "id": "q_0", "data": {"kind": "choose", "payload": {"options": [1, 2]}}},
        {"type": "text", "text": "Which one?"},
        {"type": "data-input-request", "id": "input_1", "data": {"prompt": "Which?"}},
        {
            "type": "tool-delete_file",
            "toolCallId": "c1",
            "state": "approval-requested",
            "input": {"path": "a"},
            "approval": {"id": "tok"},
        },
        {
            "type": "data-approval-manifest",
            "id": "c1",
            "data": {"toolCallId": "c1", "approvalId": "tok", "manifest": {"files": 1}},
        },
    ]
    # Formats without such parts are unchanged: Agenta leaves requests out.
    agenta = render_conversation(records, "agenta", "s1")
    assert [m["role"] for m in agenta] == ["user", "assistant"]
    assert all(b.get("type") != "data" for m in agenta[1:] for b in m["content"])


def test_vercel_leaves_out_a_request_of_a_turn_that_wrote_nothing_else() -> None:
    records = [
        record("m1", text("user", "go")),
        record("m2", _turn(request("input_1", "user_input", {"prompt": "?"}))),
        record("m3", text("user", "again")),
    ]
    assert [m["role"] for m in render_conversation(records, "vercel")] == ["user", "user"]


_TRANSIENT = {"type": "data", "author": "agent", "style": "static", "data": {"name": "p", "value": None}}
_ERROR = {"type": "data", "author": "agent", "style": "static", "data": {"type": "error", "message": "boom"}}


@pytest.mark.parametrize(
    ("last", "extra"),
    [(_TRANSIENT, {"transient": True, "wrapped": True}), (request("i1", "user_input", {}), {})],
    ids=["transient", "request"],
)
def test_a_turns_usage_stays_when_its_last_content_is_no_part(last: dict[str, Any], extra: dict) -> None:
    usage = {"input": 1, "output": 2}
    records = [
        record("m1", text("user", "go")),
        record("m2", _turn(text("agent", "Hi."))),
        record("m3", {**last, "turnwire": {"turn": "t1", "message_id": "msg-t1", "usage": usage, **extra}}),
    ]
    (_, answer) = render_conversation(records, "vercel", "s1")
    assert answer["metadata"] == {"sessionId": "s1", "usage": usage, "traceId": "t1"}


def test_vercel_ends_a_turn_at_its_error_as_the_client_read_it() -> None:
    """The AI SDK keeps the data-agent-error part and stops reading at the error chunk: nothing
    after it, and not the turn's finish (its traceId and usage)."""
    note = {"turn": "t2", "message_id": "msg-t2"}
    records = [
        record("m1", text("user", "go")),
        record("m2", _turn(text("agent", "Hi."))),
        record("m3", text("user", "again")),
        record("m4", {**text("agent", "Start"), "turnwire": note}),
        record("m5", {**_ERROR, "turnwire": {**note, "error_detail": {"code": "x"}}}),
        record("m6", {**text("agent", "after"), "turnwire": {**note, "usage": {"input": 1}}}),
    ]
    answers = render_conversation(records, "vercel", "s1")
    assert answers[1]["metadata"] == {"sessionId": "s1", "traceId": "t1"}
    assert answers[3]["parts"] == [
        {"type": "step-start"},
        {"type": "text", "text": "Start"},
        {
            "type": "data-agent-error",
            "data": {"code": "x", "errorText": "boom", "errorDetail": {"code": "x"}},
        },
    ]
    assert answers[3]["metadata"] == {"sessionId": "s1"}
