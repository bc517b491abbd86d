"""Canonical events → ``chat.completion.chunk`` and folded turns → ``chat.completion``, validated with
the real ``openai`` SDK types; finish reasons from the one table; usage; client calls; errors."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from turnwire.fold import fold
from turnwire.formats.openai import (
    APPROVAL_TOOL,
    FINISH_REASONS,
    ChatChunkEncoder,
    finish_reason,
    render_completion,
)
from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    InteractionKind,
    InteractionRequest,
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

WEATHER: list[Event] = [
    ThoughtStart("t"),
    ThoughtDelta("t", "I will call get_weather."),
    ThoughtEnd("t"),
    ToolCall("call_1", "get_weather", {"city": "Paris"}),
    ToolResult("call_1", "Sunny, 21 °C in Paris", data={"c": 21}, name="get_weather"),
    MessageStart("m"),
    MessageDelta("m", "It is "),
    MessageDelta("m", "sunny."),
    MessageEnd("m"),
    Usage(input=3, output=4, total=7),
    Done("end_turn"),
]
APPROVAL = InteractionRequest(
    "ap_tok",
    InteractionKind.USER_APPROVAL,
    {"toolCallId": "call_1", "toolName": "delete_file", "toolCall": {"rawInput": {"path": "a"}}},
)


def stream(
    events: list[Event], stop: str | None = None, *, error: str | None = None, usage: bool = False
) -> list[dict]:
    enc = ChatChunkEncoder("chatcmpl-1", "demo", 1700000000, include_usage=usage)
    out = enc.start()
    for event in events:
        out += enc.encode(event)
    return out + enc.finish(stop, error=error)


def chunks(out: list[dict]) -> list[ChatCompletionChunk]:
    return [ChatCompletionChunk.model_validate(c) for c in out if "error" not in c]


def joined(out: list[dict], key: str) -> str:
    # reasoning_content is an extension the SDK keeps as an extra field.
    return "".join(c.choices[0].delta.to_dict().get(key) or "" for c in chunks(out) if c.choices)


def test_weather_stream_carries_text_reasoning_executed_call_usage() -> None:
    out = stream(WEATHER, usage=True)
    parsed = chunks(out)
    assert parsed[0].choices[0].delta.role == "assistant"
    assert joined(out, "content") == "It is sunny."
    assert joined(out, "reasoning_content") == "I will call get_weather."
    executed = [c.choices[0].delta.model_extra.get("executed_tool_calls") for c in parsed if c.choices]
    (entry,) = [e for e in executed if e]
    assert entry[0]["function"] == {"name": "get_weather", "arguments": '{"city":"Paris"}'}
    assert entry[0]["output"] == '{"c":21}'  # the one output rule: data when given
    assert parsed[-2].choices[0].finish_reason == "stop"
    assert parsed[-1].choices == [] and parsed[-1].usage is not None
    assert parsed[-1].usage.prompt_tokens == 3 and parsed[-1].usage.total_tokens == 7
    assert all(c.choices == [] or c.choices[0].delta.tool_calls is None for c in parsed)


def test_without_include_usage_there_is_no_usage_chunk() -> None:
    parsed = chunks(stream(WEATHER))
    assert parsed[-1].choices[0].finish_reason == "stop" and parsed[-1].usage is None


def test_separate_messages_are_joined_by_a_blank_line() -> None:
    out = stream([MessageEvent("1"), MessageEvent("2"), MessageStart("m"), MessageDelta("m", "3"), Done()])
    assert joined(out, "content") == "1\n\n2\n\n3"


def test_client_tool_is_a_tool_call_and_finishes_tool_calls() -> None:
    request = InteractionRequest(
        "r", InteractionKind.CLIENT_TOOL, {"toolCallId": "c7", "toolName": "pick", "input": {"n": 1}}
    )
    parsed = chunks(stream([MessageEvent("Pick one."), request, Done("paused")]))
    calls = [tc for c in parsed if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert [(t.index, t.id, t.function.name, t.function.arguments) for t in calls] == [
        (0, "c7", "pick", '{"n":1}')
    ]
    assert parsed[-1].choices[0].finish_reason == "tool_calls"


def test_approval_pause_is_a_turnwire_approval_call_named_by_the_approval_id() -> None:
    parsed = chunks(stream([ToolCall("call_1", "delete_file", {"path": "a"}), APPROVAL, Done("paused")]))
    (call,) = [tc for c in parsed if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert call.id == "ap_tok" and call.function.name == APPROVAL_TOOL
    assert (
        call.function.arguments == '{"tool_call_id":"call_1","tool":"delete_file","arguments":{"path":"a"}}'
    )
    assert parsed[-1].choices[0].finish_reason == "tool_calls"


def test_user_input_pause_is_plain_text_and_stop() -> None:
    out = stream(
        [MessageEvent("What should I echo?"), InteractionRequest("i", "user_input", {}), Done("paused")]
    )
    assert chunks(out)[-1].choices[0].finish_reason == "stop"
    assert joined(out, "content") == "What should I echo?"


def test_data_events_are_not_in_the_completion() -> None:
    assert joined(stream([DataEvent("x", {"a": 1}), MessageEvent("hi")]), "content") == "hi"


def test_a_failed_run_ends_with_openais_error_object() -> None:
    out = stream([MessageEvent("Starting…")], error="boom")
    assert out[-1] == {
        "error": {"message": "boom", "type": "server_error", "param": None, "code": "agent_run_failed"}
    }
    out = stream([ErrorEvent("quota", code="quota_exceeded")])
    assert out[-1]["error"]["code"] == "quota_exceeded"


@pytest.mark.parametrize(
    ("stop", "expected"), [*FINISH_REASONS.items(), ("whatever", "stop"), (None, "stop")]
)
def test_every_stop_reason_maps_to_a_finish_reason_the_sdk_accepts(stop: str | None, expected: str) -> None:
    assert finish_reason(stop) == expected
    parsed = chunks(stream([MessageEvent("x")], stop))
    assert parsed[-1].choices[0].finish_reason == expected


def test_client_calls_win_over_the_stop_reason() -> None:
    assert finish_reason("end_turn", client_calls=True) == "tool_calls"


# --------------------------------------------------------------------------- batch


def completion(events: list[Event], **kw: Any) -> ChatCompletion:
    usage = next((e for e in events if isinstance(e, Usage)), None)
    turn = fold(events, full=True)
    if turn.pending_interaction is not None:  # what the door passes: every request of the turn
        kw.setdefault("pending", [e for e in events if isinstance(e, InteractionRequest)])
    body = render_completion(turn, completion_id="chatcmpl-1", model="demo", created=1, usage=usage, **kw)
    return ChatCompletion.model_validate(body)


def test_batch_weather_completion() -> None:
    done = completion(WEATHER)
    message = done.choices[0].message
    assert message.content == "It is sunny." and done.choices[0].finish_reason == "stop"
    assert message.model_extra["reasoning_content"] == "I will call get_weather."
    assert message.model_extra["executed_tool_calls"][0]["output"] == '{"c":21}'  # data when given
    assert done.usage is not None and done.usage.completion_tokens == 4
    assert message.tool_calls is None


def test_batch_approval_pause_offers_the_approval_call() -> None:
    done = completion([ToolCall("call_1", "delete_file", {"path": "a"}), APPROVAL, Done("paused")])
    (call,) = done.choices[0].message.tool_calls or []
    assert call.id == "ap_tok" and call.function.name == APPROVAL_TOOL
    assert done.choices[0].finish_reason == "tool_calls" and done.choices[0].message.content is None


def test_batch_equals_the_stream_joined() -> None:
    events = [
        MessageEvent("a"),
        ToolCall("c", "f", {}),
        ToolResult("c", "r"),
        MessageEvent("b"),
        Done("max_tokens"),
    ]
    out = stream(events)
    done = completion(events)
    assert done.choices[0].message.content == joined(out, "content") == "a\n\nb"
    assert done.choices[0].finish_reason == chunks(out)[-1].choices[0].finish_reason == "length"


EVENTS = st.one_of(
    st.builds(MessageEvent, st.text(max_size=4)),
    st.builds(MessageStart, st.sampled_from("ab")),
    st.builds(MessageDelta, st.sampled_from("ab"), st.text(max_size=4)),
    st.builds(Thought, st.text(max_size=4)),
    st.builds(
        ToolCall, st.sampled_from(["c1", "c2"]), st.sampled_from(["f", None]), st.none() | st.just({"a": 1})
    ),
    st.builds(
        ToolResult,
        st.sampled_from(["c1", "c2", None]),
        st.text(max_size=4),
        is_error=st.none() | st.booleans(),
    ),
    st.builds(
        InteractionRequest,
        st.sampled_from(["r1", "r2"]),
        st.sampled_from(["user_approval", "client_tool", "user_input"]),
        st.fixed_dictionaries({"toolCallId": st.sampled_from(["c1", "c3"])}),
    ),
    st.builds(Usage, st.none() | st.integers(0, 50), st.none() | st.integers(0, 50)),
    st.builds(ErrorEvent, st.text(max_size=4)),
    st.builds(Done, st.sampled_from([None, "end_turn", "paused", "refusal"])),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(EVENTS, max_size=20), st.booleans(), st.none() | st.just("x"))
def test_every_generated_stream_validates_with_the_sdk(
    events: list[Event], usage: bool, error: str | None
) -> None:
    out = stream(events, error=error, usage=usage)
    errored = error is not None or any(isinstance(e, ErrorEvent) for e in events)
    assert ("error" in out[-1]) == errored
    parsed = chunks(out)
    assert parsed[0].choices[0].delta.role == "assistant"
    if not errored:
        finals = [c for c in parsed if c.choices and c.choices[0].finish_reason is not None]
        assert len(finals) == 1
        indexes = [tc.index for c in parsed if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
        assert indexes == list(range(len(indexes)))
    completion(events)


def test_the_sdks_stream_accumulator_assembles_the_same_completion_as_the_batch() -> None:
    """``ChatCompletionStreamState`` (what ``client.chat.completions.stream()`` uses) merges list
    deltas by ``index``: several executed calls and client calls must accumulate cleanly."""
    from openai.lib.streaming.chat import ChatCompletionStreamState

    events: list[Event] = [
        ToolCall("c1", "f", {"a": 1}),
        ToolResult("c1", "one"),
        ToolCall("c2", "g", {}),
        ToolResult("c2", {"n": 2}),
        MessageEvent("done"),
        InteractionRequest("r", InteractionKind.CLIENT_TOOL, {"toolCallId": "c3", "toolName": "h"}),
        APPROVAL,
        Done("paused"),
    ]
    state: ChatCompletionStreamState = ChatCompletionStreamState()
    for chunk in chunks(stream(events)):
        state.handle_chunk(chunk)
    final = state.get_final_completion()
    message = final.choices[0].message
    batch = completion(events).choices[0].message
    assert message.content == batch.content == "done"
    assert (
        [c.id for c in message.tool_calls or []] == [c.id for c in batch.tool_calls or []] == ["c3", "ap_tok"]
    )
    executed = message.model_extra["executed_tool_calls"]
    assert executed == batch.model_extra["executed_tool_calls"]
    assert [(e["index"], e["id"], e["output"]) for e in executed] == [(0, "c1", "one"), (1, "c2", '{"n":2}')]
