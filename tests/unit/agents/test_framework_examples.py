"""The OpenAI Agents SDK and LangGraph weather examples run as written, on recorded streams: the
weather tool round, and the alert paused for approval, then sent (approved) or not (denied)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
from agents import OpenAIResponsesModel
from langchain_openai import ChatOpenAI

import openai_agents_agents  # noqa: F401 - tracing off
from openai_fake import FakeOpenAI, fake_openai
from turnwire.agents import langgraph_agent, openai_agents_agent
from turnwire.model import (
    Event,
    InteractionRequest,
    Message,
    MessageDelta,
    TextBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
)
from turnwire.runtime import Agent, TurnContext, run_turn

pytestmark = pytest.mark.anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))

import weather_langgraph  # noqa: E402
import weather_openai_agents  # noqa: E402
import weather_tools  # noqa: E402

ALERT = "warn ana@example.com about rain in Paris"
ALERT_CALL = "call_A1ert4naRainInPar1s0001"
ALERT_INPUT = {"email": "ana@example.com", "message": "Rain in Paris"}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


@pytest.fixture
async def clients() -> AsyncIterator[list[Any]]:
    """HTTP clients made by a test, closed in its event loop (a client collected later, in another
    test's loop, fails to close its connections)."""
    made: list[Any] = []
    yield made
    for client in made:
        await (client.close() if isinstance(client, openai.AsyncOpenAI) else client.aclose())


def example(name: str, fake: FakeOpenAI, clients: list[Any]) -> Agent:
    if name == "openai-agents":
        client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        clients.append(client)
        model = OpenAIResponsesModel("gpt-4o-mini", openai_client=client)
        return openai_agents_agent(weather_openai_agents.agent.clone(model=model))
    http = httpx.AsyncClient()
    clients.append(http)
    chat = ChatOpenAI(
        model="gpt-4o-mini",
        base_url=fake.base_url,
        api_key="sk-test",
        max_retries=0,
        stream_usage=True,
        http_async_client=http,
    )
    return langgraph_agent(weather_langgraph.build(chat))


async def turn(agent: Agent, *history: Message, session: str = "") -> list[Event]:
    return [e async for e in run_turn(agent, TurnContext(messages=list(history), session_id=session))]


def text_of(events: list[Event]) -> str:
    return "".join(e.delta for e in events if isinstance(e, MessageDelta))


@pytest.mark.parametrize("name", ["openai-agents", "langgraph"])
async def test_the_example_calls_its_weather_tool(fake: FakeOpenAI, clients: list[Any], name: str) -> None:
    events = await turn(example(name, fake, clients), user("weather in Paris"))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.data == weather_tools.get_weather("Paris")
    assert text_of(events) == "It is sunny and 21 °C in Paris."
    sent = str(fake.requests[-1])
    assert weather_tools.SYSTEM in sent  # the example's instructions reach the model


@pytest.mark.parametrize("name", ["openai-agents", "langgraph"])
@pytest.mark.parametrize(
    ("approved", "reply"), [(True, "Alert sent to ana@example.com."), (False, "I did not send the alert.")]
)
async def test_the_example_asks_before_sending_an_alert(
    fake: FakeOpenAI, clients: list[Any], name: str, approved: bool, reply: str
) -> None:
    agent = example(name, fake, clients)
    weather_tools.SENT.clear()
    session = f"example-{name}-{approved}"
    asked = await turn(agent, user(ALERT), session=session)
    request = next(e for e in asked if isinstance(e, InteractionRequest))
    assert request.payload["toolCall"] == {
        "toolCallId": ALERT_CALL,
        "name": "send_weather_alert",
        "rawInput": ALERT_INPUT,
    }
    assert asked[-1].stop_reason == "paused"  # type: ignore[union-attr]
    assert weather_tools.SENT == []
    blocks: list[Any] = [
        ToolCallBlock(id=ALERT_CALL, name="send_weather_alert", input=ALERT_INPUT),
        ToolResultBlock(id=ALERT_CALL, output={"approved": approved, "interactionToken": "ap_x"}),
    ]
    done = await turn(agent, user(ALERT), Message(role="assistant", content=blocks), session=session)
    assert text_of(done) == reply
    assert ([ALERT_INPUT] if approved else []) == weather_tools.SENT
    result = next(e for e in done if isinstance(e, ToolResult))
    assert result.id == ALERT_CALL and bool(result.denied) is not approved
    assert done[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
