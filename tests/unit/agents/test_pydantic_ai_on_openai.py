"""The pydantic-ai adapter over a real pydantic-ai model class: ``OpenAIChatModel`` through the real
``openai`` client against the recorded Chat Completions streams (tests/openai_fake.py). The provider's
own events (text, reasoning, tool calls, deferred approvals, usage) come through, not a scripted model's."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest
from pydantic_ai import Agent
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from model_tools import DELETED, delete_file, get_weather
from openai_fake import FakeOpenAI, fake_openai
from turnwire.agents import pydantic_ai_agent
from turnwire.model import (
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


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


async def turn(fake: FakeOpenAI, *history: Message) -> list[Event]:
    client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    model = OpenAIChatModel("gpt-4o-mini", provider=OpenAIProvider(openai_client=client))
    agent: Agent[None, str] = Agent(model)
    agent.tool_plain(get_weather)
    agent.tool_plain(requires_approval=True)(delete_file.function)
    try:
        return [e async for e in run_turn(pydantic_ai_agent(agent), TurnContext(messages=list(history)))]
    finally:
        await client.close()


def text_of(events: list[Event]) -> str:
    return "".join(e.delta for e in events if isinstance(e, MessageDelta))


async def test_text_reasoning_and_usage_from_the_provider(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("what is 17 times 3"))
    assert (
        "".join(e.delta for e in events if isinstance(e, ThoughtDelta))
        == "The user asks for 17 × 3. 17 × 3 = 51."
    )
    assert text_of(events) == "17 × 3 is 51."
    usage = next(e for e in events if isinstance(e, Usage))
    assert (usage.input, usage.output) == (14, 22)
    assert events[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_a_tool_round_from_the_provider(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("weather in Paris"))
    call = next(e for e in events if isinstance(e, ToolCall))
    assert (call.id, call.name, call.input) == (
        "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F",
        "get_weather",
        {"city": "Paris"},
    )
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.data == {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
    assert text_of(events) == "It is sunny and 21 °C in Paris."
    assert fake.requests[-1]["messages"][-1]["role"] == "tool"


@pytest.mark.parametrize(
    ("approved", "reply"), [(True, "Deleted notes.txt."), (False, "I did not delete notes.txt.")]
)
async def test_a_deferred_approval_from_the_provider_pauses_and_resumes(
    fake: FakeOpenAI, approved: bool, reply: str
) -> None:
    DELETED.clear()
    asked = await turn(fake, user("delete notes.txt"))
    request = next(e for e in asked if isinstance(e, InteractionRequest))
    assert request.payload["toolCallId"] == DELETE_CALL
    assert asked[-1].stop_reason == "paused"  # type: ignore[union-attr]
    blocks: list[Any] = [
        ToolCallBlock(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"}),
        ToolResultBlock(id=DELETE_CALL, output={"approved": approved, "interactionToken": "ap_x"}),
    ]
    resumed = await turn(fake, user("delete notes.txt"), Message(role="assistant", content=blocks))
    assert text_of(resumed) == reply
    assert (["notes.txt"] if approved else []) == DELETED
    assert resumed[-1] == Done(stop_reason="end_turn", trace_id=resumed[-1].trace_id)  # type: ignore[union-attr]


async def test_a_provider_error_keeps_its_http_status(fake: FakeOpenAI) -> None:
    events = await turn(fake, user("rate limited"))
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.code == "model_rate_limited" and error.detail["status"] == 429
    assert events[-1].stop_reason == "error"  # type: ignore[union-attr]
