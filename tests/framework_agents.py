"""One turnwire agent per framework adapter, scripted like the recorded OpenAI streams: the OpenAI
Agents SDK (Responses API) and LangGraph (``ChatOpenAI``) on the fake OpenAI server at ``base_url``,
pydantic-ai on its offline ``FunctionModel``. Each answers ``weather in Paris`` with a tool round
and asks before ``delete notes.txt``."""

from __future__ import annotations

from typing import Any

import openai

from langgraph_graphs import weather_graph
from openai_agents_agents import weather_agent
from pydantic_models import scripted_agent
from turnwire.agents import langgraph_agent, openai_agents_agent, pydantic_ai_agent


def framework_agent(adapter: str, base_url: str) -> Any:
    if adapter == "openai-agents":
        client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-test", max_retries=0)
        return openai_agents_agent(weather_agent(client))
    if adapter == "langgraph":
        return langgraph_agent(weather_graph(base_url))
    if adapter == "pydantic-ai":
        return pydantic_ai_agent(scripted_agent())
    raise ValueError(f"no such adapter: {adapter}")
