"""The OpenAI-compatible agent, event by event: the real ``openai`` client reads recorded Chat
Completions streams from a local server (tests/openai_fake.py) and the real runner checks the turn."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

from model_tools import DELETED, model_agent
from openai_fake import FakeOpenAI, fake_openai
from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    TextBlock,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

TRACE = "0af7651916cd43dd8448eb211c80319c"
DELETE_CALL = "call_D3l3t3N0t3sTxt0000000001"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


async def turn(fake: FakeOpenAI, *history: Message, **options: Any) -> list[Event]:
    ctx = TurnContext(messages=list(history), session_id="s1", trace_id=TRACE)
    agent = model_agent(fake.base_url, **options)
    try:
        return [event async for event in run_turn(agent, ctx)]
    finally:
        await agent.client.close()


def text_of(events: list[Event]) -> str:
    return "".join(e.delta for e in events if isinstance(e, MessageDelta))


async def test_plain_text_streams_deltas_then_usage_and_end_turn(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("hello"))
    pieces = ["Hello", "!", " How", " can", " I", " help", " you", " today", "?"]
    assert events == [
        MessageStart(id="msg_1_1"),
        *(MessageDelta(id="msg_1_1", delta=p) for p in pieces),
        MessageEnd(id="msg_1_1"),
        Usage(input=9, output=10, total=19),
        Done(stop_reason="end_turn", trace_id=TRACE),
    ]
    request = fake.requests[-1]
    assert request["model"] == "gpt-4o-mini"
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert request["messages"] == [{"role": "user", "content": "hello"}]
    assert [t["function"]["name"] for t in request["tools"]] == ["get_weather", "delete_file"]
    assert request["tools"][0]["function"]["parameters"] == {
        "type": "object",
        "properties": {"city": {"type": "string", "description": "The city's name, e.g. Paris."}},
        "required": ["city"],
    }
    assert fake.headers[-1]["authorization"] == "Bearer sk-test"


async def test_system_prompt_and_earlier_turns_are_sent(fake: FakeOpenAI) -> None:
    earlier = Message(role="assistant", content=[TextBlock("Hi there.")])
    await turn(fake, user("hi"), earlier, user("hello"), system="Be brief.")
    assert fake.requests[-1]["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hi there."},
        {"role": "user", "content": "hello"},
    ]


async def test_reasoning_content_becomes_a_thought_before_the_text(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("what is 17 times 3"))
    thought = [e for e in events if isinstance(e, ThoughtStart | ThoughtDelta | ThoughtEnd)]
    assert thought[0] == ThoughtStart(id="thought_1_1") and thought[-1] == ThoughtEnd(id="thought_1_1")
    assert "".join(e.delta for e in thought if isinstance(e, ThoughtDelta)) == (
        "The user asks for 17 × 3. 17 × 3 = 51."
    )
    assert events.index(ThoughtEnd(id="thought_1_1")) < events.index(MessageStart(id="msg_1_1"))
    assert text_of(events) == "17 × 3 is 51."
    assert Usage(input=14, output=22, total=36) in events


async def test_reasoning_field_and_cost_from_the_usage_chunk(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("think briefly"))
    assert [type(e).__name__ for e in events] == [
        "ThoughtStart", "ThoughtDelta", "ThoughtDelta", "ThoughtEnd",
        "MessageStart", "MessageDelta", "MessageDelta", "MessageEnd", "Usage", "Done",
    ]  # fmt: skip
    assert text_of(events) == "Done."
    assert Usage(input=5, output=4, total=9, cost=0.00012) in events


def whole(events: list[Event]) -> list[Event]:
    """The events without the calls' streamed argument pieces (``ToolCallDelta``, issue 30), for
    the tests that read the turn's calls and results by position; the pieces have their own test."""
    return [e for e in events if type(e) is not ToolCallDelta]


async def test_the_models_argument_pieces_stream_as_tool_call_deltas_before_the_call(
    fake: FakeOpenAI,
) -> None:
    events = await turn(fake, user("weather in Paris"))
    call_id = "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F"
    at = next(i for i, e in enumerate(events) if isinstance(e, ToolCall))
    deltas = events[:at]
    # The recorded stream (tests/fixtures/openai_streams/weather.0.sse): the id and name first, with
    # empty arguments, then the JSON text in pieces, each passed on as it came.
    assert deltas[0] == ToolCallDelta(id=call_id, delta="", name="get_weather")
    assert all(isinstance(d, ToolCallDelta) and d.id == call_id and d.name is None for d in deltas[1:])
    assert len(deltas) > 3
    assert "".join(d.delta for d in deltas if isinstance(d, ToolCallDelta)) == '{"city":"Paris"}'
    assert events[at] == ToolCall(id=call_id, name="get_weather", input={"city": "Paris"})


async def test_one_tool_call_runs_and_the_model_answers_with_its_result(fake: FakeOpenAI) -> None:
    events = whole(await turn(fake, user("weather in Paris")))
    call_id = "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F"
    weather = {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
    assert events[:2] == [
        ToolCall(id=call_id, name="get_weather", input={"city": "Paris"}),
        ToolResult(
            id=call_id,
            name="get_weather",
            output='{"city":"Paris","condition":"Sunny","temperature_c":21}',
            data=weather,
        ),
    ]
    assert text_of(events) == "It is sunny and 21 °C in Paris."
    assert sum(isinstance(e, Usage) for e in events) == 1
    assert events[-2:] == [
        Usage(input=159, output=26, total=185),
        Done(stop_reason="end_turn", trace_id=TRACE),
    ]
    sent = fake.requests[-1]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    }
    assert sent[2] == {
        "role": "tool",
        "tool_call_id": call_id,
        "content": '{"city":"Paris","condition":"Sunny","temperature_c":21}',
    }


async def test_three_parallel_calls_with_interleaved_arguments(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("weather in Paris, London and Tokyo"))
    calls = [e for e in events if isinstance(e, ToolCall)]
    assert [(c.id, c.input) for c in calls] == [
        ("call_A1b2C3d4E5f6G7h8I9j0K1l2", {"city": "Paris"}),
        ("call_M3n4O5p6Q7r8S9t0U1v2W3x4", {"city": "London"}),
        ("call_Y5z6A7b8C9d0E1f2G3h4I5j6", {"city": "Tokyo"}),
    ]
    results = [e for e in events if isinstance(e, ToolResult)]
    assert [r.data["city"] for r in results] == ["Paris", "London", "Tokyo"]
    sent = fake.requests[-1]["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool", "tool"]
    assert text_of(events) == "Paris: sunny, London: sunny, Tokyo: sunny."


async def test_a_gated_tool_pauses_with_an_approval_and_does_not_run(fake: FakeOpenAI) -> None:
    DELETED.clear()
    events = whole(await turn(fake, user("delete notes.txt")))
    call = ToolCall(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"})
    assert events == [
        call,
        Usage(input=58, output=17, total=75),
        InteractionRequest(
            id=f"approve_{DELETE_CALL}",
            kind="user_approval",
            payload={
                "toolCallId": DELETE_CALL,
                "toolName": "delete_file",
                "toolCall": {
                    "toolCallId": DELETE_CALL,
                    "name": "delete_file",
                    "rawInput": {"path": "notes.txt"},
                },
            },
        ),
        Done(stop_reason="paused", trace_id=TRACE),
    ]
    assert DELETED == []


def paused_history(approved: bool | None) -> list[Message]:
    blocks: list[Any] = [ToolCallBlock(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"})]
    if approved is not None:
        output = {"approved": approved, "interactionToken": "ap_x"}
        blocks.append(ToolResultBlock(id=DELETE_CALL, output=output))
    return [user("delete notes.txt"), Message(role="assistant", content=blocks)]


@pytest.mark.parametrize(
    ("approved", "reply"), [(True, "Deleted notes.txt."), (False, "I did not delete notes.txt.")]
)
async def test_resumed_cold_the_decision_runs_or_denies_the_call(
    fake: FakeOpenAI, approved: bool, reply: str
) -> None:
    DELETED.clear()
    events = await turn(fake, *paused_history(approved))
    result = events[0]
    assert isinstance(result, ToolResult) and result.id == DELETE_CALL
    if approved:
        assert result.data == {"path": "notes.txt", "deleted": True} and not result.is_error
        assert DELETED == ["notes.txt"]
    else:
        assert (result.denied, result.is_error) == (True, True)
        assert DELETED == []
    assert text_of(events) == reply
    sent = fake.requests[-1]["messages"]
    assert sent[1]["tool_calls"][0]["function"] == {
        "name": "delete_file",
        "arguments": '{"path":"notes.txt"}',
    }
    assert sent[2]["role"] == "tool" and sent[2]["tool_call_id"] == DELETE_CALL
    assert ("denied" in sent[2]["content"]) is not approved


async def test_a_replay_without_the_decision_asks_again_without_calling_the_model(fake: FakeOpenAI) -> None:
    before = len(fake.requests)
    events = await turn(fake, *paused_history(None))
    assert [type(e).__name__ for e in events] == ["InteractionRequest", "Done"]
    assert events[-1] == Done(stop_reason="paused", trace_id=TRACE)
    assert len(fake.requests) == before


async def test_warm_resume_through_the_parked_yield_equals_the_cold_replay(fake: FakeOpenAI) -> None:
    agent = model_agent(fake.base_url)
    first = TurnContext(messages=[user("delete notes.txt")], session_id="s1", trace_id=TRACE)
    agen = agent(first)
    paused = [event async for event in _until_done(agen)]
    assert paused[-1] == Done(stop_reason="paused")
    resumed_ctx = TurnContext(messages=paused_history(True), session_id="s1", trace_id=TRACE)
    warm = [await agen.asend(resumed_ctx)]
    warm += [event async for event in _until_done(agen)]
    await agen.aclose()
    cold = [event async for event in _until_done(agent(resumed_ctx))]
    await agent.client.close()
    assert warm == cold
    assert text_of(warm) == "Deleted notes.txt."


async def _until_done(agen: Any):
    async for event in agen:
        yield event
        if isinstance(event, Done):
            return


async def test_finish_reason_length_is_max_tokens(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("write a story"))
    assert events[-1] == Done(stop_reason="max_tokens", trace_id=TRACE)
    assert text_of(events) == "Once upon a time"


async def test_a_stream_with_a_finish_reason_but_no_done_marker_is_complete(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("no done"))
    assert text_of(events) == "Still complete."
    assert events[-1] == Done(stop_reason="end_turn", trace_id=TRACE)


async def test_no_usage_chunk_means_no_usage_event(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("no usage"))
    assert not any(isinstance(e, Usage) for e in events)
    assert events[-1] == Done(stop_reason="end_turn", trace_id=TRACE)


ERRORS = {
    "unauthorized": ("model_unauthorized", 401, "Incorrect API key provided"),
    "no model": ("model_not_found", 404, "The model `gpt-nope` does not exist"),
    "rate limited": ("model_rate_limited", 429, "Rate limit reached"),
    "overloaded": ("model_server_error", 503, "The engine is currently overloaded"),
    "server error": ("model_server_error", 500, "The server had an error"),
}


@pytest.mark.parametrize("prompt", list(ERRORS))
async def test_http_errors_become_one_error_event_and_done_error(fake: FakeOpenAI, prompt: str) -> None:
    code, status, text = ERRORS[prompt]
    events = await turn(fake, user(prompt))
    assert len(events) == 2
    error, done = events
    assert isinstance(error, ErrorEvent) and error.code == code
    assert error.message.startswith(f"The model server answered {status}: {text}")
    assert error.detail["status"] == status
    assert done == Done(stop_reason="error", trace_id=TRACE)
    if status == 429:
        assert error.detail["retryAfter"] == 20
        assert error.message.endswith("(retry after 20 s)")


@pytest.mark.parametrize(
    ("prompt", "code", "text"),
    [
        ("cut", "model_stream_incomplete", "The answer is forty"),
        ("reset", "model_connection_error", "The answer is forty"),
        ("malformed", "model_bad_chunk", "Half"),
        ("stream error", "model_stream_error", "Let me"),
    ],
)
async def test_broken_streams_keep_the_text_so_far_then_end_with_an_error(
    fake: FakeOpenAI, prompt: str, code: str, text: str
) -> None:
    events = await turn(fake, user(prompt))
    assert text_of(events) == text
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.code == code, error
    assert events.index(MessageEnd(id="msg_1_1")) < events.index(error)
    assert events[-1] == Done(stop_reason="error", trace_id=TRACE)


async def test_the_step_limit_ends_the_turn_with_an_error(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("loop"), max_steps=2)
    assert len([e for e in events if isinstance(e, ToolCall)]) == 2
    error = events[-2]
    assert isinstance(error, ErrorEvent) and error.code == "max_steps_exceeded"
    assert events[-1] == Done(stop_reason="error", trace_id=TRACE)


async def test_closing_the_turn_closes_the_upstream_connection(fake: FakeOpenAI) -> None:
    agent = model_agent(fake.base_url)
    run = run_turn(agent, TurnContext(messages=[user("slow")], trace_id=TRACE))
    seen = []
    async for event in run:
        seen.append(event)
        if isinstance(event, MessageDelta) and event.delta == " slowly":
            break
    record = fake.disconnects[-1]
    assert record.scenario == "slow" and record.left is None
    closed_at = time.monotonic()
    await run.aclose()
    assert await asyncio.to_thread(record.left_event.wait, 5)
    assert record.left is not None and record.left - closed_at < 1.0
    assert text_of(seen) == "Thinking slowly"
    await agent.client.close()


async def test_a_missing_api_key_is_an_error_event_not_a_crash(monkeypatch: pytest.MonkeyPatch) -> None:
    from turnwire.agents import openai_agent

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    events = [e async for e in run_turn(openai_agent("gpt-4o-mini"), TurnContext(messages=[user("hi")]))]
    assert isinstance(events[0], ErrorEvent) and "OPENAI_API_KEY" in events[0].message
    assert events[-1].stop_reason == "error"


MIXED_WEATHER = "call_W3ath3rMix000000000000001"
MIXED_DELETE = "call_D3l3t3Mix00000000000002"


async def test_a_free_call_runs_while_its_gated_sibling_waits_then_both_reach_the_model(
    fake: FakeOpenAI,
) -> None:
    DELETED.clear()
    prompt = "weather in Paris and delete notes.txt"
    asked = whole(await turn(fake, user(prompt)))
    assert [type(e).__name__ for e in asked] == [
        "ToolCall", "ToolCall", "ToolResult", "Usage", "InteractionRequest", "Done",
    ]  # fmt: skip
    weather = asked[2]
    assert isinstance(weather, ToolResult) and weather.id == MIXED_WEATHER
    assert asked[4].payload["toolCallId"] == MIXED_DELETE  # type: ignore[union-attr]
    assert DELETED == []

    calls = [ToolCallBlock(id=c.id, name=c.name, input=c.input) for c in asked[:2]]  # type: ignore[union-attr]
    done = ToolResultBlock(id=MIXED_WEATHER, name="get_weather", output=weather.output)
    decision = ToolResultBlock(id=MIXED_DELETE, output={"approved": True, "interactionToken": "ap_x"})
    resumed = await turn(fake, user(prompt), Message(role="assistant", content=[*calls, done, decision]))
    assert [e.id for e in resumed if isinstance(e, ToolResult)] == [MIXED_DELETE]
    assert DELETED == ["notes.txt"]
    assert text_of(resumed) == "Sunny in Paris; deleted notes.txt."
    sent = fake.requests[-1]["messages"]
    assert [(m["role"], m.get("tool_call_id")) for m in sent] == [
        ("user", None),
        ("assistant", None),
        ("tool", MIXED_WEATHER),
        ("tool", MIXED_DELETE),
    ]


async def test_arguments_that_are_not_json_go_back_to_the_model_as_an_error(fake: FakeOpenAI) -> None:
    events = whole(await turn(fake, user("bad arguments")))
    call = events[0]
    assert isinstance(call, ToolCall) and call.input == '{"city": Paris}'
    result = events[1]
    assert isinstance(result, ToolResult) and result.is_error
    assert result.output == "the arguments of get_weather must be a JSON object"
    assert fake.requests[-1]["messages"][2]["content"] == result.output
    assert text_of(events) == "Sorry, I could not look that up."
