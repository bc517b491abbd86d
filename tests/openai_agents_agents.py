"""OpenAI Agents SDK agents on the fake OpenAI server (``AsyncOpenAI`` with a loopback ``base_url``):
the recorded streams' tools, the delete tool with ``needs_approval``. Tracing is off: no test sends
anything to a tracing endpoint."""

from __future__ import annotations

from typing import Any

import openai
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    function_tool,
    set_tracing_disabled,
)

from model_tools import DELETED

set_tracing_disabled(True)


@function_tool
def get_weather(city: str) -> dict[str, Any]:
    """The current weather in a city.

    Args:
        city: The city's name, e.g. Paris.
    """
    return {"city": city, "condition": "Sunny", "temperature_c": 21}


@function_tool(needs_approval=True)
def delete_file(path: str) -> dict[str, Any]:
    """Delete a file (asks the user first).

    Args:
        path: The file to delete.
    """
    DELETED.append(path)
    return {"path": path, "deleted": True}


def weather_agent(client: openai.AsyncOpenAI, api: str = "responses") -> Agent[Any]:
    """The agent on ``client``; ``api``: ``responses`` (the SDK's default) or ``chat``."""
    model: Any = (
        OpenAIResponsesModel("gpt-4o-mini", openai_client=client)
        if api == "responses"
        else OpenAIChatCompletionsModel("gpt-4o-mini", openai_client=client)
    )
    return Agent(name="weather", instructions="Be brief.", model=model, tools=[get_weather, delete_file])
