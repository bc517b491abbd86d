"""Built-in agents, model adapters, and the loader that finds agents by name (``turnwire serve --agent``).

``openai_agent``, ``pydantic_ai_agent``, ``openai_agents_agent`` and ``langgraph_agent`` are imported on
first use: they need the optional extras ``turnwire[openai]``, ``turnwire[pydantic-ai]``,
``turnwire[openai-agents]`` and ``turnwire[langgraph]``, which the base install does not have.
"""

from __future__ import annotations

from typing import Any

from turnwire.agents.demo import demo_agent
from turnwire.agents.loader import AgentLoadError, builtin_agents, load_agent
from turnwire.agents.tools import Tool, tool

__all__ = [
    "AgentLoadError",
    "Tool",
    "builtin_agents",
    "demo_agent",
    "langgraph_agent",
    "load_agent",
    "openai_agent",
    "openai_agents_agent",
    "pydantic_ai_agent",
    "tool",
]


def __getattr__(name: str) -> Any:
    if name == "openai_agent":
        from turnwire.agents.openai_chat import openai_agent

        return openai_agent
    if name == "pydantic_ai_agent":
        from turnwire.agents.pydantic_ai import pydantic_ai_agent

        return pydantic_ai_agent
    if name == "openai_agents_agent":
        from turnwire.agents.openai_agents import openai_agents_agent

        return openai_agents_agent
    if name == "langgraph_agent":
        from turnwire.agents.langgraph import langgraph_agent

        return langgraph_agent
    raise AttributeError(f"module 'turnwire.agents' has no attribute {name!r}")
