"""Every tool-call id an adapter sends a model is one the strictest provider accepts
(``^[A-Za-z0-9_-]+$``), and whatever the model names by it maps back to the exact turnwire id."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import openai
import pytest
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from model_tools import DELETED, delete_file, get_weather
from openai_fake import FakeOpenAI, fake_openai
from turnwire.agents import openai_agent, pydantic_ai_agent
from turnwire.agents.model_ids import ModelIds
from turnwire.model import (
    Event,
    Message,
    MessageDelta,
    TextBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
)
from turnwire.runtime import Agent as TurnwireAgent
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

PROVIDER_ID = re.compile(r"^[A-Za-z0-9_-]+$")
RENAMED = "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F~2"  # the runtime's rename of a repeated id
OPEN = "call_D3l3t3N0t3sTxt0000000001~2"


def test_safe_ids_pass_and_others_get_unique_stand_ins() -> None:
    ids = ModelIds(["call_0~2", "call_0_2", "call_0", "toolu 1/x"])
    assert ids.to_model("call_0") == "call_0"
    assert ids.to_model("call_0_2") == "call_0_2"  # a real id keeps its name...
    assert ids.to_model("call_0~2") == "call_0_2_2"  # ...and the stand-in goes around it
    assert ids.to_model("toolu 1/x") == "toolu_1_x"
    for original in ("call_0~2", "call_0_2", "call_0", "toolu 1/x", "call_new~3"):
        model_id = ids.to_model(original)
        assert PROVIDER_ID.match(model_id)
        assert ids.from_model(model_id) == original
    assert ids.from_model("call_fresh_from_the_model") == "call_fresh_from_the_model"


def request_ids(request: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for message in request.get("messages", ()):
        out += [call["id"] for call in message.get("tool_calls") or ()]
        if "tool_call_id" in message:
            out.append(message["tool_call_id"])
    return out


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


def earlier_round() -> list[Message]:
    """A finished tool round whose call the runtime renamed."""
    return [
        user("weather in Paris"),
        Message(
            role="assistant",
            content=[
                ToolCallBlock(id=RENAMED, name="get_weather", input={"city": "Paris"}),
                ToolResultBlock(id=RENAMED, output={"city": "Paris", "temperature_c": 21}),
                TextBlock("It is sunny and 21 °C in Paris."),
            ],
        ),
    ]


def open_approval(approved: bool) -> list[Message]:
    blocks: list[Any] = [
        ToolCallBlock(id=OPEN, name="delete_file", input={"path": "notes.txt"}),
        ToolResultBlock(id=OPEN, output={"approved": approved, "interactionToken": "ap_x"}),
    ]
    return [user("delete notes.txt"), Message(role="assistant", content=blocks)]


def pydantic_agent(client: openai.AsyncOpenAI) -> TurnwireAgent:
    agent: Agent[None, str] = Agent(
        OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(openai_client=client))
    )
    agent.tool_plain(get_weather)
    agent.tool_plain(requires_approval=True)(delete_file.function)
    return pydantic_ai_agent(agent)


def chat_agent(client: openai.AsyncOpenAI) -> TurnwireAgent:
    return openai_agent("gpt-4o-mini", [get_weather, delete_file], client=client)


ADAPTERS = {"openai_chat": chat_agent, "pydantic_ai": pydantic_agent}


async def turn(fake: FakeOpenAI, adapter: str, history: list[Message]) -> list[Event]:
    client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    try:
        agent = ADAPTERS[adapter](client)
        return [e async for e in run_turn(agent, TurnContext(messages=history))]
    finally:
        await client.close()


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
async def test_a_renamed_call_reaches_the_model_under_a_safe_id(fake: FakeOpenAI, adapter: str) -> None:
    events = await turn(fake, adapter, [*earlier_round(), user("hello")])
    assert "".join(e.delta for e in events if isinstance(e, MessageDelta))
    sent = request_ids(fake.requests[-1])
    assert sent == ["call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F_2", "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F_2"]
    assert all(PROVIDER_ID.match(i) for i in sent)


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
async def test_an_approved_renamed_call_resumes_under_its_exact_id(fake: FakeOpenAI, adapter: str) -> None:
    DELETED.clear()
    events = await turn(fake, adapter, [*earlier_round(), *open_approval(True)])
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.id == OPEN  # the turnwire id, not the model's stand-in
    assert DELETED == ["notes.txt"]
    sent = request_ids(fake.requests[-1])
    assert "call_D3l3t3N0t3sTxt0000000001_2" in sent
    assert all(PROVIDER_ID.match(i) for i in sent)


def sent_ids(request: dict[str, Any]) -> list[str]:
    """Tool-call ids of a Chat Completions or a Responses request."""
    if "input" in request:
        return [i["call_id"] for i in request["input"] if isinstance(i, dict) and "call_id" in i]
    return request_ids(request)


def framework_agent(name: str, client: openai.AsyncOpenAI, fake: FakeOpenAI, http: Any) -> TurnwireAgent:
    from langgraph_graphs import weather_graph
    from openai_agents_agents import weather_agent
    from turnwire.agents import langgraph_agent, openai_agents_agent

    if name == "openai-agents":
        return openai_agents_agent(weather_agent(client))
    return langgraph_agent(weather_graph(fake.base_url, http=http))


@pytest.mark.parametrize("name", ["openai-agents", "langgraph"])
async def test_the_framework_adapters_send_safe_ids_and_map_them_back(fake: FakeOpenAI, name: str) -> None:
    import httpx

    client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    async with httpx.AsyncClient() as http:
        try:
            agent = framework_agent(name, client, fake, http)
            await turn_with(agent, [*earlier_round(), user("hello")])
            assert sent_ids(fake.requests[-1]) == ["call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F_2"] * 2
            DELETED.clear()
            # A cold resume (the openai-agents adapter runs the approved tool from the history).
            if name == "openai-agents":
                events = await turn_with(agent, [*earlier_round(), *open_approval(True)])
                result = next(e for e in events if isinstance(e, ToolResult))
                assert result.id == OPEN and DELETED == ["notes.txt"]
                assert "call_D3l3t3N0t3sTxt0000000001_2" in sent_ids(fake.requests[-1])
                assert all(PROVIDER_ID.match(i) for i in sent_ids(fake.requests[-1]))
        finally:
            await client.close()


async def turn_with(agent: TurnwireAgent, history: list[Message]) -> list[Event]:
    return [e async for e in run_turn(agent, TurnContext(messages=history))]
