"""The demo agent's script, event by event, through the real runner."""

from __future__ import annotations

import time

import pytest

from turnwire.agents import demo
from turnwire.agents.demo import demo_agent
from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    Done,
    ErrorEvent,
    Event,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    TextBlock,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

TRACE = "b7ad6b7169203331b7ad6b7169203331"


def ctx(*texts: str, history: list[Message] | None = None) -> TurnContext:
    messages = list(history or []) + [Message(role="user", content=[TextBlock(t)]) for t in texts]
    return TurnContext(messages=messages, session_id="demo-session", parameters={}, trace_id=TRACE)


async def turn(context: TurnContext) -> list[Event]:
    return [event async for event in run_turn(demo_agent, context)]


def end(reason: str = "end_turn") -> Done:
    return Done(stop_reason=reason, trace_id=TRACE)


def said(message_id: str, *deltas: str) -> list[Event]:
    return [MessageStart(message_id), *(MessageDelta(message_id, d) for d in deltas), MessageEnd(message_id)]


def thought(thought_id: str, text: str) -> list[Event]:
    return [ThoughtStart(thought_id), ThoughtDelta(thought_id, text), ThoughtEnd(thought_id)]


async def test_default_echoes_with_a_thought_word_by_word_and_usage() -> None:
    assert await turn(ctx("Hello there, agent")) == [
        *thought("thought_1_1", "The user said: Hello there, agent."),
        *said("msg_1_1", "You ", "said: ", "Hello ", "there, ", "agent"),
        Usage(input=3, output=5, total=8),
        end(),
    ]


async def test_echo_deltas_join_back_to_the_exact_reply() -> None:
    out = await turn(ctx("  two  spaces\nand a line  "))
    text = "".join(e.delta for e in out if isinstance(e, MessageDelta))
    assert text == "You said: two  spaces\nand a line"


async def test_no_user_text_gets_a_fixed_reply() -> None:
    assert await turn(TurnContext(messages=[], trace_id=TRACE)) == [
        *thought("thought_0_1", "The user said nothing."),
        *said("msg_0_1", "You ", "said ", "nothing."),
        Usage(input=0, output=3, total=3),
        end(),
    ]


async def test_weather_calls_the_tool_then_answers() -> None:
    assert await turn(ctx("  Weather in Paris?  ")) == [
        *thought("thought_1_1", "The user wants the weather in Paris. I will call get_weather."),
        ToolCall(id="call_1", name="get_weather", input={"city": "Paris"}),
        ToolResult(
            id="call_1",
            name="get_weather",
            output="Sunny, 21 °C in Paris",
            data={"city": "Paris", "condition": "Sunny", "temperature_c": 21},
        ),
        *said("msg_1_1", "It ", "is ", "sunny ", "and ", "21 ", "°C ", "in ", "Paris."),
        Usage(input=3, output=8, total=11),
        end(),
    ]


async def test_ids_follow_the_history_so_a_later_turn_gets_new_ones() -> None:
    history = [
        Message(role="user", content=[TextBlock("weather in Oslo")]),
        Message(
            role="assistant", content=[ToolCallBlock(id="call_1", name="get_weather", input={"city": "Oslo"})]
        ),
        Message(role="tool", content=[ToolResultBlock(id="call_1", output="Sunny, 21 °C in Oslo")]),
    ]
    out = await turn(ctx("WEATHER IN new york", history=history))
    assert out[3] == ToolCall(id="call_2", name="get_weather", input={"city": "new york"})
    assert out[0] == ThoughtStart("thought_2_1")
    assert MessageStart("msg_2_1") in out


async def test_count_sends_one_message_per_number_fifty_ms_apart() -> None:
    started = time.perf_counter()
    out = await turn(ctx("Count To 3"))
    elapsed = time.perf_counter() - started
    assert out == [*said("msg_1_1", "1"), *said("msg_1_2", "2"), *said("msg_1_3", "3"), Usage(3, 3, 6), end()]
    assert elapsed >= 0.1  # two gaps of 50 ms


async def test_count_to_zero_sends_no_messages() -> None:
    assert await turn(ctx("count to 0")) == [Usage(input=3, output=0, total=3), end()]


async def test_count_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "COUNT_LIMIT", 4)
    monkeypatch.setattr(demo, "COUNT_INTERVAL", 0)
    out = await turn(ctx("count to 999999999999"))
    assert [e.delta for e in out if isinstance(e, MessageDelta)] == ["1", "2", "3", "4"]


async def test_fail_streams_text_then_the_runner_reports_the_failure() -> None:
    assert await turn(ctx("FAIL")) == [
        MessageStart("msg_1_1"),
        MessageDelta("msg_1_1", "Starting…"),
        MessageEnd("msg_1_1"),
        ErrorEvent(message="Agent run failed: demo failure requested", code="agent_run_failed"),
        end("error"),
    ]


async def test_silent_produces_nothing_but_the_runner_done() -> None:
    assert await turn(ctx(" silent ")) == [end()]


async def test_sleep_waits_then_says_done_sleeping() -> None:
    started = time.perf_counter()
    out = await turn(ctx("sleep 0.2"))
    assert time.perf_counter() - started >= 0.2
    assert out == [*said("msg_1_1", "Done ", "sleeping."), Usage(input=2, output=2, total=4), end()]


async def test_sleep_is_capped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(demo, "SLEEP_LIMIT", 0.05)
    started = time.perf_counter()
    out = await turn(ctx("sleep 3600"))
    assert time.perf_counter() - started < 1.0
    assert out[-1] == end()


@pytest.mark.parametrize("text", ["count to three", "failure", "weather in", "sleep -1", "silently"])
async def test_near_miss_commands_are_echoed(text: str) -> None:
    out = await turn(ctx(text))
    assert out[1] == ThoughtDelta("thought_1_1", f"The user said: {text}.")


@pytest.mark.parametrize("text", ["hi", "weather in Lima", "count to 2", "fail", "silent", "sleep 0"])
async def test_same_history_gives_the_same_turn(text: str) -> None:
    assert await turn(ctx(text)) == await turn(ctx(text))


async def test_sources_for_sends_every_event_of_the_newer_wires() -> None:
    assert await turn(ctx("Sources for Moon tides?")) == [
        AgentStart("researcher"),
        StateSnapshot({"topic": "Moon tides", "sources": 0}),
        StepStart("search"),
        ToolCallDelta("call_1", '{"query":"M', name="search"),
        ToolCallDelta("call_1", 'oon tides"}'),
        ToolCall("call_1", "search", {"query": "Moon tides"}),
        ToolProgress("call_1", {"status": "searching", "found": 1}),
        ToolResult(
            "call_1",
            output="2 sources for Moon tides",
            data={"query": "Moon tides", "found": 2},
            name="search",
        ),
        StepEnd("search"),
        StateDelta([{"op": "replace", "path": "/sources", "value": 2}]),
        SourceUrl("src_1_1", "https://en.wikipedia.org/wiki/Moon_tides", title="Moon tides"),
        SourceDocument("src_1_2", "application/pdf", "Notes on Moon tides", filename="notes.pdf"),
        CustomEvent("turnwire.demo_sources", {"topic": "Moon tides", "count": 2}),
        *said("msg_1_1", "Here ", "are ", "2 ", "sources ", "for ", "Moon ", "tides."),
        AgentEnd("researcher"),
        Usage(input=4, output=7, total=11),
        end(),
    ]
