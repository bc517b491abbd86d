"""The OpenAI Agents SDK adapter on recorded Responses API streams (``OpenAIResponsesModel`` through the
real ``openai`` client): reasoning, handoffs, errors, cancellation, and an approval resumed warm (the
SDK's ``RunState``) giving the same turn as one resumed cold (from the history)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import openai
import pytest
from agents import Agent, OpenAIResponsesModel

from model_tools import DELETED
from openai_agents_agents import weather_agent
from openai_fake import FakeOpenAI, fake_openai
from turnwire.agents import openai_agents_agent
from turnwire.agents.chat_history import to_chat_messages
from turnwire.agents.openai_agents import from_input_items, to_input_items
from turnwire.model import (
    AgentEnd,
    AgentStart,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    Message,
    MessageDelta,
    TextBlock,
    ThoughtDelta,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

DELETE_CALL = "call_D3l3t3N0t3sTxt0000000001"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


@pytest.fixture
async def client(fake: FakeOpenAI) -> AsyncIterator[openai.AsyncOpenAI]:
    client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    yield client
    await client.close()


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


async def turn(agent: Any, *history: Message) -> list[Event]:
    return [e async for e in run_turn(agent, TurnContext(messages=list(history)))]


def text_of(events: list[Event]) -> str:
    return "".join(e.delta for e in events if isinstance(e, MessageDelta))


async def test_a_calls_arguments_stream_as_the_model_generates_them(client: openai.AsyncOpenAI) -> None:
    events = await turn(openai_agents_agent(weather_agent(client)), user("weather in Paris"))
    call = next(e for e in events if isinstance(e, ToolCall))
    pieces = [e for e in events if isinstance(e, ToolCallDelta)]
    assert pieces[0] == ToolCallDelta(id=call.id, delta="", name="get_weather")
    assert len(pieces) > 2 and {p.id for p in pieces} == {call.id}
    assert call.input == {"city": "Paris"} and "".join(p.delta for p in pieces) == '{"city":"Paris"}'
    assert events.index(pieces[-1]) < events.index(call)  # the whole call closes its pieces


async def test_reasoning_text_and_usage(client: openai.AsyncOpenAI) -> None:
    events = await turn(openai_agents_agent(weather_agent(client)), user("what is 17 times 3"))
    assert (
        "".join(e.delta for e in events if isinstance(e, ThoughtDelta))
        == "The user asks for 17 × 3. 17 × 3 = 51."
    )
    assert text_of(events) == "17 × 3 is 51."
    assert next(e for e in events if isinstance(e, Usage)) == Usage(input=14, output=22, total=36)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_a_handoff_shows_which_agent_speaks(client: openai.AsyncOpenAI, fake: FakeOpenAI) -> None:
    model = OpenAIResponsesModel("gpt-4o-mini", openai_client=client)
    forecaster = Agent(name="forecaster", instructions="Forecasts.", model=model)
    triage = Agent(name="triage", instructions="Route.", model=model, handoffs=[forecaster])
    events = await turn(openai_agents_agent(triage), user("ask the forecaster"))
    call = next(e for e in events if isinstance(e, ToolCall))
    assert (call.id, call.name) == ("call_H4nd0ffT0F0recaster0001", "transfer_to_forecaster")
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.id == call.id
    speaking = [e for e in events if isinstance(e, DataEvent)]
    assert speaking == [DataEvent(name="agent", data={"name": "forecaster"})]
    assert events.index(speaking[0]) < events.index(next(e for e in events if isinstance(e, MessageDelta)))
    assert text_of(events) == "Forecaster here: sunny all week."
    assert fake.requests[-1]["instructions"] == "Forecasts."  # the other agent answered
    # The agent handed to speaks as a sub-agent: agent_start with the data event, agent_end at the end.
    scoped = [e for e in events if isinstance(e, AgentStart | AgentEnd)]
    assert scoped == [AgentStart(name="forecaster"), AgentEnd(name="forecaster")]
    assert events.index(scoped[0]) == events.index(speaking[0]) + 1
    assert events.index(scoped[1]) > max(i for i, e in enumerate(events) if isinstance(e, MessageDelta))


async def test_a_model_error_keeps_the_openai_adapters_code(client: openai.AsyncOpenAI) -> None:
    events = await turn(openai_agents_agent(weather_agent(client)), user("rate limited"))
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.code == "model_rate_limited"
    assert error.detail == {"status": 429, "model": "gpt-4o-mini", "retryAfter": 20}
    assert events[-1].stop_reason == "error"  # type: ignore[union-attr]


async def test_a_client_leaving_closes_the_model_stream(client: openai.AsyncOpenAI, fake: FakeOpenAI) -> None:
    agent = openai_agents_agent(weather_agent(client))
    stream = agent(TurnContext(messages=[user("slow")]))
    async with contextlib.aclosing(stream):
        async for event in stream:
            if isinstance(event, MessageDelta):
                break
    record = fake.disconnects[-1]
    assert record.scenario == "slow"
    assert await asyncio.to_thread(record.left_event.wait, 5)


async def _until_paused(stream: Any) -> list[Event]:
    out: list[Event] = []
    while True:
        event = await stream.__anext__()
        out.append(event)
        if isinstance(event, Done):
            return out


@pytest.mark.parametrize(
    ("approved", "reply"), [(True, "Deleted notes.txt."), (False, "I did not delete notes.txt.")]
)
async def test_an_approval_resumed_warm_gives_the_cold_turn(
    client: openai.AsyncOpenAI, fake: FakeOpenAI, approved: bool, reply: str
) -> None:
    agent = openai_agents_agent(weather_agent(client))
    asked_history = [user("delete notes.txt")]
    blocks: list[Any] = [
        ToolCallBlock(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"}),
        ToolResultBlock(id=DELETE_CALL, output={"approved": approved, "interactionToken": "ap_x"}),
    ]
    decided = [*asked_history, Message(role="assistant", content=blocks)]

    DELETED.clear()
    stream = agent(TurnContext(messages=asked_history))
    asked = await _until_paused(stream)
    assert isinstance(asked[-2], InteractionRequest) and asked[-1].stop_reason == "paused"  # type: ignore[union-attr]
    warm: list[Event] = []
    event = await stream.asend(TurnContext(messages=decided))  # what a warm session does
    while True:
        warm.append(event)
        try:
            event = await stream.__anext__()
        except StopAsyncIteration:
            break
    warm_deleted = list(DELETED)
    warm_request = fake.requests[-1]

    DELETED.clear()
    cold = [e async for e in agent(TurnContext(messages=decided))]
    assert text_of(warm) == text_of(cold) == reply
    assert warm_deleted == DELETED == (["notes.txt"] if approved else [])
    assert [type(e).__name__ for e in warm] == [type(e).__name__ for e in cold]
    assert [e for e in warm if isinstance(e, ToolResult | Usage)] == [
        e for e in cold if isinstance(e, ToolResult | Usage)
    ]
    # The model read the same conversation both ways (the SDK's own item ids aside).
    strip = [{k: v for k, v in i.items() if k not in ("id", "status")} for i in warm_request["input"]]
    assert strip == [
        {k: v for k, v in i.items() if k not in ("id", "status")} for i in fake.requests[-1]["input"]
    ]


def test_input_items_both_ways() -> None:
    history = [
        user("weather in Paris"),
        Message(
            role="assistant",
            content=[
                ToolCallBlock(id="c1", name="get_weather", input={"city": "Paris"}),
                ToolResultBlock(id="c1", output="sunny"),
                TextBlock("It is sunny."),
            ],
        ),
    ]
    items = to_input_items(to_chat_messages(history).messages)
    assert items == [
        {"role": "user", "content": "weather in Paris"},
        {"type": "function_call", "call_id": "c1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "sunny"},
        {"role": "assistant", "content": "It is sunny."},
    ]
    back = from_input_items(items)
    assert [m.role for m in back] == ["user", "assistant", "tool", "assistant"]
    assert back[1].content == [ToolCallBlock(id="c1", name="get_weather", input={"city": "Paris"})]
    assert back[2].content == [ToolResultBlock(id="c1", output="sunny")]
