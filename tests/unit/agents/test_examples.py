"""The weather examples run as written: the OpenAI one on a recorded stream, the pydantic-ai one on a
scripted model, each pausing its alert tool for approval."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from openai_fake import FakeOpenAI, fake_openai
from turnwire.agents import pydantic_ai_agent
from turnwire.model import (
    Done,
    InteractionRequest,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "examples"))

import weather_openai  # noqa: E402
import weather_pydantic_ai  # noqa: E402
import weather_tools  # noqa: E402


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


async def test_the_openai_example_calls_its_weather_tool(fake: FakeOpenAI) -> None:
    agent = weather_openai.agent
    assert agent.tools["send_weather_alert"].requires_approval
    assert not agent.tools["get_weather"].requires_approval
    agent._client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    try:
        events = [e async for e in run_turn(agent, TurnContext(messages=[user("weather in Paris")]))]
    finally:
        await agent._client.close()
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.data == weather_tools.get_weather("Paris")
    assert fake.requests[-1]["messages"][0] == {"role": "system", "content": weather_tools.SYSTEM}
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_the_pydantic_ai_example_asks_before_sending_an_alert() -> None:
    from pydantic_ai.messages import ModelRequest, ToolReturnPart
    from pydantic_ai.models.function import AgentInfo, DeltaToolCall, FunctionModel

    async def model(messages: list[Any], info: AgentInfo) -> AsyncIterator[Any]:
        last = messages[-1]
        if isinstance(last, ModelRequest) and any(isinstance(p, ToolReturnPart) for p in last.parts):
            yield "Sent."
            return
        args = '{"email": "ana@example.com", "message": "Rain in Paris"}'
        yield {0: DeltaToolCall(name="send_weather_alert", json_args=args, tool_call_id="alert_1")}

    agent = pydantic_ai_agent(weather_pydantic_ai.agent)
    weather_tools.SENT.clear()
    with weather_pydantic_ai.agent.override(model=FunctionModel(stream_function=model)):
        asked = [e async for e in run_turn(agent, TurnContext(messages=[user("warn ana")]))]
        assert isinstance(asked[-2], InteractionRequest) and asked[-1] == Done("paused", asked[-1].trace_id)  # type: ignore[union-attr]
        assert weather_tools.SENT == []
        call = ToolCallBlock(
            id="alert_1", name="send_weather_alert", input=asked[-2].payload["toolCall"]["rawInput"]
        )
        decision = ToolResultBlock(id="alert_1", output={"approved": True, "interactionToken": "ap_x"})
        history = [user("warn ana"), Message(role="assistant", content=[call, decision])]
        done = [e async for e in run_turn(agent, TurnContext(messages=history))]
    assert weather_tools.SENT == [{"email": "ana@example.com", "message": "Rain in Paris"}]
    assert done[-1].stop_reason == "end_turn"  # type: ignore[union-attr]
