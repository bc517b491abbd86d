"""pydantic-ai agents on an offline ``FunctionModel`` scripted like the recorded OpenAI streams: the
last user prompt picks the scenario, a tool return in the request means the answer step."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

from pydantic import BaseModel
from pydantic_ai import Agent, CallDeferred
from pydantic_ai.exceptions import ModelHTTPError
from pydantic_ai.messages import ModelMessage, ModelRequest, ToolReturnPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, DeltaThinkingPart, DeltaToolCall, FunctionModel
from pydantic_ai.models.test import TestModel

from model_tools import delete_file, get_weather

WEATHER_CALL = "pyd_weather_1"
DELETE_CALL = "pyd_delete_1"
MIXED = "weather in Paris and delete notes.txt"
LOCATION_CALL = "pyd_location_1"
MIXED_WEATHER = "pyd_mixed_weather"
MIXED_DELETE = "pyd_mixed_delete"


CANCELLED = threading.Event()
"""Set when the ``slow`` prompt's model stream stops early (cancelled or closed)."""


class ModelDown(RuntimeError):
    """What the scripted model raises for the ``fail`` prompt."""


def _prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart):
                    return part.content if isinstance(part.content, str) else ""
    return ""


async def script(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[Any]:
    last = messages[-1]
    returns = (
        [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
    )
    prompt = _prompt(messages)
    if returns:
        if prompt == "where am I":
            yield f"You are in {returns[0].content}."
        elif prompt == MIXED:
            denied = any("denied" in str(r.content) for r in returns)
            yield "Sunny in Paris; kept notes.txt." if denied else "Sunny in Paris; deleted notes.txt."
        elif prompt == "delete notes.txt":
            denied = "denied" in str(returns[0].content)
            yield "I did not delete notes.txt." if denied else "Deleted notes.txt."
        else:
            for piece in ["It is sunny", " and 21 °C", " in Paris."]:
                yield piece
        return
    if prompt == "hello":
        for piece in ["Hello", "! How can", " I help?"]:
            yield piece
    elif prompt == "what is 17 times 3":
        yield {0: DeltaThinkingPart(content="17 × 3")}
        yield {0: DeltaThinkingPart(content=" = 51.")}
        yield "17 × 3 is 51."
    elif prompt == "weather in Paris":
        yield {0: DeltaToolCall(name="get_weather", json_args='{"city":', tool_call_id=WEATHER_CALL)}
        yield {0: DeltaToolCall(json_args=' "Paris"}')}
    elif prompt == "delete notes.txt":
        yield {
            0: DeltaToolCall(name="delete_file", json_args='{"path": "notes.txt"}', tool_call_id=DELETE_CALL)
        }
    elif prompt == MIXED:
        yield {
            0: DeltaToolCall(name="get_weather", json_args='{"city": "Paris"}', tool_call_id=MIXED_WEATHER)
        }
        yield {
            1: DeltaToolCall(name="delete_file", json_args='{"path": "notes.txt"}', tool_call_id=MIXED_DELETE)
        }
    elif prompt == "slow":
        try:
            yield "Thinking"
            await asyncio.sleep(30)
            yield " too late"
        finally:  # cancelled, or closed: the stream stops either way
            CANCELLED.set()
    elif prompt == "where am I":
        yield {0: DeltaToolCall(name="get_location", json_args="{}", tool_call_id=LOCATION_CALL)}
    elif prompt == "rate limited":
        raise ModelHTTPError(429, "scripted", {"error": {"message": "Rate limit reached"}}, retry_after=20)
    elif prompt == "fail":
        yield "Starting"
        raise ModelDown("the scripted model went down")
    else:
        yield f"No script for {prompt!r}."


def scripted_agent() -> Agent[None, str]:
    agent = Agent(FunctionModel(stream_function=script), instructions="You are a helpful assistant.")
    agent.tool_plain(get_weather)
    agent.tool_plain(requires_approval=True)(delete_file.function)
    agent.tool_plain(get_location)
    return agent


def get_location() -> str:
    """Where the user is: only the client knows, so the call is deferred to it."""
    raise CallDeferred


class Forecast(BaseModel):
    city: str
    temperature_c: int


def structured_agent() -> Agent[None, Forecast]:
    """``TestModel`` answers with a ``Forecast`` built from the schema (no tools)."""
    return Agent(TestModel(custom_output_args={"city": "Paris", "temperature_c": 21}), output_type=Forecast)


pydantic_weather = scripted_agent()
"""For ``--agent name=pydantic_models:pydantic_weather`` (the loader wraps it)."""
