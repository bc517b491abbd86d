"""Recognising the agent objects of the frameworks turnwire adapts, without importing any of them.

Each framework is an optional extra. An object of one exists only once its package is imported, so
looking in ``sys.modules`` is enough and the base install never imports them.
"""

from __future__ import annotations

import sys
from typing import Final

# (framework, module, class) — an instance of the class is served by the framework's adapter.
_AGENT_CLASSES: Final = (
    ("pydantic-ai", "pydantic_ai.agent", "AbstractAgent"),
    ("pydantic-ai", "pydantic_ai", "Agent"),
    ("openai-agents", "agents.agent", "Agent"),
    ("langgraph", "langgraph.pregel.main", "Pregel"),
    ("langgraph", "langgraph.pregel", "Pregel"),
)

# Objects that are close to an agent but not one: what to do instead.
_NEAR_MISSES: Final = (
    ("langgraph.graph.state", "StateGraph", "an uncompiled LangGraph StateGraph: serve graph.compile()"),
    (
        "openai",
        "AsyncOpenAI",
        "an OpenAI client, not an agent: serve turnwire.agents.openai_agent(model, tools, client=client)",
    ),
)

ADAPTERS: Final = (
    "for a pydantic_ai.Agent use turnwire.agents.pydantic_ai_agent(agent), "
    "for an OpenAI Agents SDK agents.Agent turnwire.agents.openai_agents_agent(agent), "
    "for a compiled LangGraph graph turnwire.agents.langgraph_agent(graph), "
    "for an OpenAI-compatible model turnwire.agents.openai_agent(model, tools)"
)


def _instance_of(value: object, module_name: str, class_name: str) -> bool:
    base = getattr(sys.modules.get(module_name), class_name, None)
    return isinstance(base, type) and isinstance(value, base)


def framework_of(value: object) -> str | None:
    """``"pydantic-ai"``, ``"openai-agents"`` or ``"langgraph"`` for an agent object of that framework."""
    for framework, module_name, class_name in _AGENT_CLASSES:
        if _instance_of(value, module_name, class_name):
            # ``agents`` is a common package name: only the Agents SDK's has ``agents.run.Runner``.
            if framework == "openai-agents" and not hasattr(sys.modules.get("agents.run"), "Runner"):
                continue
            return framework
    return None


def near_miss(value: object) -> str | None:
    """What ``value`` is and what to serve instead, for objects often mistaken for an agent."""
    for module_name, class_name, text in _NEAR_MISSES:
        if _instance_of(value, module_name, class_name):
            return text
    return None
