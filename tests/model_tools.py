"""The tools the recorded streams call, and an agent wired to a fake server (real ``openai`` client)."""

from __future__ import annotations

from typing import Any

import openai

from turnwire.agents import openai_agent, tool
from turnwire.agents.openai_chat import OpenAIAgent

DELETED: list[str] = []


async def get_weather(city: str) -> dict[str, Any]:
    """The current weather in a city.

    Args:
        city: The city's name, e.g. Paris.
    """
    return {"city": city, "condition": "Sunny", "temperature_c": 21}


@tool(requires_approval=True)
def delete_file(path: str) -> dict[str, Any]:
    """Delete a file (asks the user first).

    Args:
        path: The file to delete.
    """
    DELETED.append(path)
    return {"path": path, "deleted": True}


def model_agent(base_url: str, **options: Any) -> OpenAIAgent:
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
    return openai_agent("gpt-4o-mini", [get_weather, delete_file], client=client, **options)
