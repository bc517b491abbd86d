"""An OpenAI Agents SDK agent whose model is a turnwire agent on the Responses door
(``OpenAIResponsesModel`` pointed at the live server): batch, streamed, and continued by
``previous_response_id``; the server's tool work reaches the SDK as tool items."""

from __future__ import annotations

import asyncio

import pytest

agents = pytest.importorskip("agents")
from agents import Agent, OpenAIResponsesModel, Runner, set_tracing_disabled  # noqa: E402
from openai import AsyncOpenAI  # noqa: E402

set_tracing_disabled(True)


def _agent(url: str) -> Agent:
    client = AsyncOpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=20)
    return Agent(
        name="front",
        instructions="Be helpful.",
        model=OpenAIResponsesModel(model="demo", openai_client=client),
    )


def test_an_agents_sdk_agent_uses_a_turnwire_agent_as_its_model(wires_url: str) -> None:
    async def run() -> None:
        agent = _agent(wires_url)
        done = await Runner.run(agent, "weather in Rome")
        assert done.final_output == "It is sunny and 21 °C in Rome."
        kinds = [type(item).__name__ for item in done.new_items]
        assert kinds == ["ReasoningItem", "ToolCallItem", "MessageOutputItem"]
        again = await Runner.run(agent, "hello", previous_response_id=done.last_response_id)
        assert again.final_output == "You said: hello"

    asyncio.run(run())


def test_an_agents_sdk_agent_streams_from_a_turnwire_agent(wires_url: str) -> None:
    async def run() -> None:
        streamed = Runner.run_streamed(_agent(wires_url), "count to 3")
        deltas = []
        async for event in streamed.stream_events():
            data = getattr(event, "data", None)
            if getattr(data, "type", None) == "response.output_text.delta":
                deltas.append(data.delta)
        assert deltas == ["1", "2", "3"]
        assert streamed.final_output == "3"

    asyncio.run(run())
