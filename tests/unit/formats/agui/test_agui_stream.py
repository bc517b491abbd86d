"""Canonical events → AG-UI events: shapes the real ``ag-ui-protocol`` models accept, the client's
order rules, steps, tools, interrupts, client tools, errors — for fixed and generated sequences."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agui_checks import check_stream
from turnwire.formats.agui import AgUiStreamEncoder, split_interrupt_id
from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionKind,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)


def run(events: list[Event], stop: str | None = None, *, error: str | None = None, **kw: Any) -> list[dict]:
    kw.setdefault("message_id", "msg-t")
    enc = AgUiStreamEncoder("thread-1", "run-1", **kw)
    out = enc.start()
    for event in events:
        out += enc.encode(event)
    out += enc.finish(stop, error=error)
    check_stream(out)
    return out


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]


def test_text_turn_has_the_exact_event_order() -> None:
    out = run(
        [MessageStart("m"), MessageDelta("m", "Hel"), MessageDelta("m", "lo"), MessageEnd("m")], "end_turn"
    )
    assert out == [
        {"type": "RUN_STARTED", "threadId": "thread-1", "runId": "run-1", "protocolVersion": "1.0"},
        {"type": "STEP_STARTED", "stepName": "step-1"},
        {"type": "TEXT_MESSAGE_START", "messageId": "msg-t", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-t", "delta": "Hel"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "msg-t", "delta": "lo"},
        {"type": "TEXT_MESSAGE_END", "messageId": "msg-t"},
        {"type": "STEP_FINISHED", "stepName": "step-1"},
        {
            "type": "RUN_FINISHED",
            "threadId": "thread-1",
            "runId": "run-1",
            "outcome": {"type": "success"},
            "metadata": {"turnwire": {"stopReason": "end_turn"}},
        },
    ]


def test_weather_turn_has_two_steps_and_a_result() -> None:
    out = run(
        [
            ThoughtStart("t"),
            ThoughtDelta("t", "thinking"),
            ThoughtEnd("t"),
            ToolCall("call_1", "get_weather", {"city": "Paris"}),
            ToolResult("call_1", "Sunny, 21 °C in Paris", data={"c": 21}, name="get_weather"),
            MessageStart("m"),
            MessageDelta("m", "It is sunny."),
            MessageEnd("m"),
            Usage(input=3, output=4, total=7),
        ],
        "end_turn",
    )
    assert types(out) == [
        "RUN_STARTED",
        "STEP_STARTED",
        "REASONING_START",
        "REASONING_MESSAGE_START",
        "REASONING_MESSAGE_CONTENT",
        "REASONING_MESSAGE_END",
        "REASONING_END",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "STEP_FINISHED",
        "STEP_STARTED",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "RUN_FINISHED",
    ]
    args = next(e for e in out if e["type"] == "TOOL_CALL_ARGS")
    assert args["delta"] == '{"city":"Paris"}'
    result = next(e for e in out if e["type"] == "TOOL_CALL_RESULT")
    # The one output rule (ToolResult.result_output): the structured data when the agent gave one.
    assert result["content"] == '{"c":21}' and result["toolCallId"] == "call_1"
    assert out[-1]["usage"] == [{"inputTokens": 3, "outputTokens": 4, "totalTokens": 7}]


def test_tool_call_names_the_text_message_before_it_as_parent() -> None:
    out = run([MessageEvent("Let me look."), ToolCall("c1", "lookup", {})])
    start = next(e for e in out if e["type"] == "TOOL_CALL_START")
    assert start["parentMessageId"] == "msg-t"
    assert next(e for e in out if e["type"] == "TOOL_CALL_ARGS")["delta"] == "{}"


def test_approval_pause_finishes_with_a_tool_call_interrupt() -> None:
    payload = {"toolCallId": "call_1", "toolName": "delete_file", "toolCall": {"rawInput": {"path": "a"}}}
    out = run(
        [
            ToolCall("call_1", "delete_file", {"path": "a"}),
            InteractionRequest("ap_token", InteractionKind.USER_APPROVAL, payload),
            Done("paused"),
        ]
    )
    finished = out[-1]
    assert finished["type"] == "RUN_FINISHED"
    (interrupt,) = finished["outcome"]["interrupts"]
    assert finished["outcome"]["type"] == "interrupt"
    assert interrupt["reason"] == "tool_call" and interrupt["toolCallId"] == "call_1"
    assert split_interrupt_id(interrupt["id"]) == ("user_approval", "call_1", "ap_token")
    assert interrupt["responseSchema"]["required"] == ["approved"]
    assert types(out).count("TOOL_CALL_START") == 1  # the call is not announced twice


def test_approval_for_an_unseen_call_announces_the_call_first() -> None:
    payload = {"toolCallId": "c9", "toolCall": {"name": "rm", "rawInput": {"p": 1}}}
    out = run([InteractionRequest("tok", InteractionKind.USER_APPROVAL, payload), Done("paused")])
    start = next(e for e in out if e["type"] == "TOOL_CALL_START")
    assert start["toolCallName"] == "rm"
    assert out[-1]["outcome"]["interrupts"][0]["toolCallId"] == "c9"


def test_user_input_is_an_input_required_interrupt_with_the_prompt() -> None:
    out = run(
        [
            MessageEvent("What should I echo?"),
            InteractionRequest("input_1", "user_input", {"prompt": "Echo?"}),
        ],
        "paused",
    )
    (interrupt,) = out[-1]["outcome"]["interrupts"]
    assert interrupt["reason"] == "input_required" and interrupt["message"] == "Echo?"
    assert split_interrupt_id(interrupt["id"]) == ("user_input", None, "input_1")


def test_client_tool_is_a_tool_call_and_a_pending_id_not_an_interrupt() -> None:
    payload = {"toolCallId": "c2", "toolName": "pick_color", "input": {"n": 2}}
    out = run([InteractionRequest("r", InteractionKind.CLIENT_TOOL, payload)], "paused")
    assert out[-1]["outcome"] == {"type": "success", "pendingToolCallIds": ["c2"]}
    assert next(e for e in out if e["type"] == "TOOL_CALL_START")["toolCallName"] == "pick_color"


def test_result_for_a_call_from_the_history_is_sent_without_a_new_start() -> None:
    out = run([ToolResult("call_1", "a deleted"), MessageEvent("Deleted a.")], known_tool_call_ids=["call_1"])
    assert "TOOL_CALL_START" not in types(out)
    assert next(e for e in out if e["type"] == "TOOL_CALL_RESULT")["content"] == "a deleted"


def test_orphan_result_is_dropped() -> None:
    out = run([ToolResult("nobody", "x"), MessageEvent("hi")])
    assert "TOOL_CALL_RESULT" not in types(out)


def test_denied_result_says_so() -> None:
    out = run([ToolCall("c", "rm", {}), ToolResult("c", "The user denied it.", is_error=True, denied=True)])
    assert next(e for e in out if e["type"] == "TOOL_CALL_RESULT")["content"] == "The user denied it."


def test_structured_output_goes_out_as_json_text() -> None:
    out = run([ToolCall("c", "f", {}), ToolResult("c", {"a": [1, 2]})])
    assert next(e for e in out if e["type"] == "TOOL_CALL_RESULT")["content"] == '{"a":[1,2]}'


def test_a_call_after_reasoning_or_data_is_not_parented_to_the_text_before() -> None:
    """The client would hold such a call (and its result) ahead of the reasoning or data."""
    for between in (Thought("hmm"), DataEvent("card", {"a": 1})):
        out = run([MessageEvent(text="hi"), between, ToolCall("c", "f", {}), ToolCall("d", "f", {})])
        # A parent the client does not hold: it opens an assistant message under that id, the
        # third message of the run (where the stored conversation has it); the next call joins it.
        starts = [e for e in out if e["type"] == "TOOL_CALL_START"]
        assert [e["parentMessageId"] for e in starts] == ["msg-t-3", "msg-t-3"]


def test_messages_are_named_from_the_stored_message_id_in_the_order_they_open() -> None:
    out = run(
        [
            ThoughtStart("t"),
            ThoughtDelta("t", "hm"),
            ThoughtEnd("t"),
            ToolCall("c1", "f", {}),
            ToolResult("c1", "r"),
            MessageStart("m1"),
            MessageDelta("m1", "a"),
            MessageEnd("m1"),
            MessageStart("m1"),  # an agent's id reused after its message ended: a new message
            MessageEnd("m1"),
            Thought("again"),
            DataEvent("card", {"a": 1}),
        ],
        message_id="msg-abc",
    )
    opened = [
        e.get("messageId") or e.get("parentMessageId")
        for e in out
        if e["type"]
        in (
            "TEXT_MESSAGE_START",
            "REASONING_MESSAGE_START",
            "TOOL_CALL_START",
            "TOOL_CALL_RESULT",
            "ACTIVITY_SNAPSHOT",
        )
    ]
    assert opened == ["msg-abc", *(f"msg-abc-{k}" for k in range(2, 8))]
    assert out[0]["runId"] == "run-1"


def test_a_message_reopened_after_tool_results_keeps_its_id() -> None:
    """The agent had not ended it: the store keeps one message, the client appends to it."""
    out = run(
        [
            MessageStart("m"),
            MessageDelta("m", "a"),
            ToolCall("c", "f", {}),
            ToolResult("c", "r"),
            MessageStart("n"),
            MessageDelta("m", "b"),
            MessageEnd("m"),
            MessageEnd("n"),
        ]
    )
    starts = [e["messageId"] for e in out if e["type"] == "TEXT_MESSAGE_START"]
    assert starts == ["msg-t", "msg-t-3", "msg-t"]


def test_answers_taken_from_resume_go_to_the_client_in_run_started_input() -> None:
    answer = {"id": "resume:user_input//input_1", "role": "user", "content": "blue"}
    out = run([MessageEvent("You answered: blue")], input_messages=[answer])
    assert out[0]["input"] == {"threadId": "thread-1", "runId": "run-1", "messages": [answer]}
    assert "input" not in run([])[0]


def test_data_and_files_are_custom_events() -> None:
    out = run([DataEvent("chart", {"x": 1}), FileEvent("https://x/y.png", "image/png")])
    customs = [e for e in out if e["type"] == "CUSTOM"]
    assert customs == [
        {"type": "CUSTOM", "name": "chart", "value": {"x": 1}},
        {"type": "CUSTOM", "name": "file", "value": {"url": "https://x/y.png", "mediaType": "image/png"}},
    ]


def test_stored_data_is_also_an_activity_message_the_client_keeps() -> None:
    """The stored conversation reads data back as activity messages; the client holds them too."""
    out = run([DataEvent("chart", {"x": 1}), DataEvent(None, [1]), DataEvent("tick", 1, transient=True)])
    activities = [e for e in out if e["type"] == "ACTIVITY_SNAPSHOT"]
    kept = [(e["activityType"], e["content"]) for e in activities]
    assert kept == [("chart", {"x": 1}), ("data", {"value": [1]})]
    assert len({e["messageId"] for e in activities}) == 2


def test_a_failed_run_closes_what_is_open_then_reports_run_error() -> None:
    out = run([MessageStart("m"), MessageDelta("m", "Starting…")], error="boom")
    assert types(out)[-3:] == ["TEXT_MESSAGE_END", "STEP_FINISHED", "RUN_ERROR"]
    assert out[-1] == {"type": "RUN_ERROR", "message": "boom", "code": "agent_run_failed"}


def test_an_error_event_from_the_agent_ends_the_run_with_its_message() -> None:
    out = run([ErrorEvent("quota exceeded", code="quota"), Done("error")])
    assert out[-1] == {"type": "RUN_ERROR", "message": "quota exceeded", "code": "quota"}


def test_cancelled_run_finishes_with_the_cancelled_outcome() -> None:
    out = run([MessageEvent("par")], "cancelled")
    assert out[-1]["outcome"] == {"type": "cancelled"}


def test_empty_run_is_started_and_finished() -> None:
    assert types(run([])) == ["RUN_STARTED", "RUN_FINISHED"]


def test_nothing_after_finish_and_finish_only_once() -> None:
    enc = AgUiStreamEncoder("t", "r")
    out = enc.finish()
    assert enc.finish() == [] and enc.encode(MessageEvent("late")) == []
    assert types(out) == ["RUN_STARTED", "RUN_FINISHED"]


def test_delta_for_an_unopened_message_opens_it_and_empty_deltas_are_skipped() -> None:
    out = run([MessageDelta("m", ""), MessageDelta("m", "x"), ThoughtDelta("t", "y")])
    assert types(out)[2:4] == ["TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT"]
    assert [e.get("delta") for e in out if e["type"] == "TEXT_MESSAGE_CONTENT"] == ["x"]


def test_parent_run_id_and_trace_id_are_carried() -> None:
    out = run([Done("end_turn", trace_id="abc")], parent_run_id="run-0")
    assert out[0]["parentRunId"] == "run-0"
    assert out[-1]["metadata"] == {"turnwire": {"stopReason": "end_turn", "traceId": "abc"}}


# --------------------------------------------------------------------------- generated sequences

IDS = st.sampled_from(["a", "b", "c"])
CALL_IDS = st.sampled_from(["c1", "c2", "c3"])
TEXT = st.text(max_size=5)

EVENTS = st.one_of(
    st.builds(MessageEvent, TEXT),
    st.builds(MessageStart, IDS),
    st.builds(MessageDelta, IDS, TEXT),
    st.builds(MessageEnd, IDS),
    st.builds(Thought, TEXT),
    st.builds(ThoughtStart, IDS),
    st.builds(ThoughtDelta, IDS, TEXT),
    st.builds(ThoughtEnd, IDS),
    st.builds(ToolCall, CALL_IDS, st.sampled_from(["f", "g", None]), st.none() | st.dictionaries(TEXT, TEXT)),
    st.builds(
        ToolResult,
        CALL_IDS | st.none(),
        TEXT,
        is_error=st.none() | st.booleans(),
        denied=st.none() | st.booleans(),
    ),
    st.builds(
        InteractionRequest,
        TEXT.filter(bool),
        st.sampled_from(["user_approval", "user_input", "client_tool", "custom"]),
        st.fixed_dictionaries({"toolCallId": CALL_IDS, "toolName": st.sampled_from(["f", "g"])}) | st.none(),
    ),
    st.builds(InteractionResponse, IDS, IDS),
    st.builds(DataEvent, st.none() | IDS, st.integers()),
    st.builds(FileEvent, st.just("https://x/f"), st.just("image/png")),
    st.builds(Usage, st.none() | st.integers(0, 9), st.none() | st.integers(0, 9)),
    st.builds(ErrorEvent, TEXT),
    st.builds(Done, st.sampled_from([None, "end_turn", "paused", "cancelled", "error", "max_tokens"])),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(EVENTS, max_size=25),
    st.sampled_from([None, "end_turn", "paused", "cancelled"]),
    st.none() | st.just("it broke"),
    st.lists(CALL_IDS, max_size=2),
)
def test_every_generated_sequence_validates_and_keeps_the_order_rules(
    events: list[Event], stop: str | None, error: str | None, known: list[str]
) -> None:
    run(events, stop, error=error, known_tool_call_ids=known)
