"""The Vercel batch answer from a turn's events: the message the stream's client assembles, rendered
by the renderer of the stored conversation (``render_outputs(..., events=...)``)."""

from __future__ import annotations

from turnwire.fold import fold
from turnwire.formats import NOTE_KEY
from turnwire.formats.vercel import render_conversation, render_outputs
from turnwire.model import (
    DataBlock,
    DataEvent,
    ErrorEvent,
    FileEvent,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ReasoningBlock,
    TextBlock,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Usage,
)


def _answer(events: list, **kwargs: object) -> dict:
    (message,) = render_outputs(fold(events), events=events, **kwargs)["messages"]  # type: ignore[arg-type]
    return message


def test_the_answer_has_every_part_the_stream_sent_in_its_order_and_the_stream_metadata() -> None:
    events = [
        Thought("plan"),
        ThoughtStart("r9"),
        ThoughtDelta("r9", "a"),
        ThoughtDelta("r9", "b"),
        ThoughtEnd("r9"),
        MessageEvent("Looking."),
        ToolCall("c1", "lookup", {"q": 1}, render={"kind": "card"}),
        ToolResult("c1", output="found", data={"n": 1}, render={"kind": "table"}),
        DataEvent("progress", {"p": 50}, transient=True),
        DataEvent("weather", {"t": 21}),
        FileEvent("https://example.com/a.png", "image/png"),
        MessageStart("m1"),
        MessageDelta("m1", "Do"),
        MessageDelta("m1", "ne."),
        MessageEnd("m1"),
        Usage(input=3, output=4),
        Usage(input=5, output=6, total=11),
    ]
    message = _answer(events, message_id="msg-t1", session_id="s1", trace_id="t1")
    assert message == {
        "id": "msg-t1",
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {"type": "reasoning", "text": "plan", "id": "reasoning-1"},
            {"type": "reasoning", "text": "ab", "id": "r9"},
            {"type": "text", "text": "Looking."},
            {
                "type": "tool-lookup",
                "toolCallId": "c1",
                "state": "output-available",
                "input": {"q": 1},
                "output": {"n": 1},  # the one output rule: the result's data
            },
            {"type": "data-render", "data": {"toolCallId": "c1", "render": {"kind": "card"}}},
            {"type": "data-render", "data": {"toolCallId": "c1", "render": {"kind": "table"}}},
            # the transient progress is no part: the AI SDK hands it to onData only
            {"type": "data-weather", "data": {"t": 21}},
            {"type": "file", "mediaType": "image/png", "url": "https://example.com/a.png"},
            {"type": "step-start"},
            {"type": "text", "text": "Done."},
        ],
        "metadata": {"sessionId": "s1", "usage": {"input": 5, "output": 6, "total": 11}, "traceId": "t1"},
    }


def test_the_answer_is_what_the_stored_conversation_renders_of_the_same_turn() -> None:
    """One renderer: the contents the store keeps of a turn (one per block, noted with the turn and
    message) read back as the batch answered."""
    events = [
        Thought("hm"),
        ToolCall("c1", "lookup", {}, render={"r": 1}),
        ToolResult("c1", output="x"),
        MessageEvent("ok"),
        DataEvent(None, [1, 2]),
    ]
    note = {"message_id": "msg-t1", "turn": "t1", "session": "s1"}
    rendered = {NOTE_KEY: {**note, "render": {"r": 1}}}
    stored = [
        Message("user", [TextBlock("go")], id="u1"),
        Message(
            "assistant", [ReasoningBlock("hm", id="reasoning-1")], id="msg-t1", metadata={NOTE_KEY: note}
        ),
        Message("tool", [ToolCallBlock("c1", "lookup", {})], metadata=rendered),
        Message("tool", [ToolResultBlock("c1", "lookup", "x")], metadata={NOTE_KEY: note}),
        Message("assistant", [TextBlock("ok")], metadata={NOTE_KEY: note}),
        Message("assistant", [DataBlock([1, 2])], metadata={NOTE_KEY: note}),
    ]
    history = render_conversation(stored, {})
    answer = _answer(events, message_id="msg-t1", session_id="s1", trace_id="t1")
    assert history[1] == answer
    assert [p["type"] for p in answer["parts"]] == [
        "step-start",
        "reasoning",
        "tool-lookup",
        "data-render",
        "step-start",
        "text",
        "data-data",
    ]


def test_a_continuation_answers_the_whole_message_the_client_appends_to() -> None:
    """After an approval the client resends its message; the stream's parts go onto it, so the
    answer is that message, its earlier parts first (their steps put back by the stream's rule)."""
    earlier = Message(
        "assistant",
        [
            TextBlock("Deleting."),
            ToolCallBlock("c1", "delete_file", {"path": "x"}),
            ToolResultBlock("c1", output={"approved": True, "interactionToken": "ap_1"}),
        ],
        id="a1",
        metadata={"sessionId": "s1", "traceId": "t1", "usage": {"input": 1}},
    )
    history = [Message("user", [TextBlock("delete x")], id="u1"), earlier]
    events = [ToolResult("c1", output="x deleted", render={"done": True}), MessageEvent("Deleted x.")]
    message = _answer(events, continuation_id="a1", history=history, session_id="s1", trace_id="t2")
    assert message["id"] == "a1"
    assert message["parts"] == [
        {"type": "step-start"},
        {"type": "text", "text": "Deleting."},
        {
            "type": "tool-delete_file",
            "toolCallId": "c1",
            "state": "output-available",
            "input": {"path": "x"},
            "approval": {"id": "ap_1", "approved": True},
            "output": "x deleted",
        },
        # the resumed call's result and its render come before the turn's step, as streamed
        {"type": "data-render", "data": {"toolCallId": "c1", "render": {"done": True}}},
        {"type": "step-start"},
        {"type": "text", "text": "Deleted x."},
    ]
    assert message["metadata"] == {"sessionId": "s1", "traceId": "t2", "usage": {"input": 1}}


def test_a_turn_of_transient_data_alone_answers_no_message() -> None:
    events = [DataEvent("progress", {"p": 1}, transient=True)]
    assert render_outputs(fold(events), events=events, message_id="m")["messages"] == []


def test_an_image_file_and_other_files_are_file_parts_alike() -> None:
    events = [FileEvent("https://x/a.pdf", "application/pdf")]
    (_, part) = _answer(events, message_id="m")["parts"]
    assert part == {"type": "file", "mediaType": "application/pdf", "url": "https://x/a.pdf"}


def test_requests_answer_the_parts_the_stream_sent_for_them() -> None:
    events = [
        MessageEvent("Which?"),
        InteractionRequest("input_1", "user_input", {"prompt": "Which?"}),
        InteractionRequest("q_1", "choose", [1, 2]),
        InteractionRequest(
            "ct_1",
            "client_tool",
            {"toolCallId": "c9", "toolName": "pick", "input": {"n": 1}, "render": "form"},
        ),
    ]
    (_, text, asked, chose, tool, render) = _answer(events, message_id="m")["parts"]
    assert text == {"type": "text", "text": "Which?"}
    assert asked == {"type": "data-input-request", "id": "input_1", "data": {"prompt": "Which?"}}
    assert chose == {"type": "data-interaction", "id": "q_1", "data": {"kind": "choose", "payload": [1, 2]}}
    assert tool == {"type": "tool-pick", "toolCallId": "c9", "state": "input-available", "input": {"n": 1}}
    assert render == {"type": "data-render", "data": {"toolCallId": "c9", "render": "form"}}


def test_an_error_ends_the_answer_where_the_client_stopped_reading() -> None:
    events = [
        MessageEvent("a"),
        ErrorEvent("boom", "rate_limited", {"retry": 2}),
        MessageEvent("b"),
        Usage(1),
    ]
    message = _answer(events, message_id="m", session_id="s1", trace_id="t1")
    assert message["parts"] == [
        {"type": "step-start"},
        {"type": "text", "text": "a"},
        {
            "type": "data-agent-error",
            "data": {"code": "rate_limited", "errorText": "boom", "errorDetail": {"retry": 2}},
        },
    ]
    assert message["metadata"] == {"sessionId": "s1"}  # the finish (traceId, usage) was never read
