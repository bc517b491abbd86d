"""Both loaders (``turnwire serve --agent name=module:obj`` and ``create_app(agents=...)``) serve a
framework's agent through its adapter and refuse, at start, anything that is not an agent, naming
the adapter to use."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from turnwire.agents import AgentLoadError, demo_agent, load_agent
from turnwire.agents.langgraph import LangGraphAgent
from turnwire.agents.openai_agents import OpenAIAgentsAgent
from turnwire.agents.pydantic_ai import PydanticAIAgent
from turnwire.server.app import create_app

ADAPTER_HINT = "turnwire.agents.pydantic_ai_agent(agent)"


@pytest.fixture
def framework_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "framework_agents_for_loader_test.py").write_text(
        textwrap.dedent(
            """
            from typing import TypedDict

            import agents
            import openai
            from langgraph.graph import END, START, MessagesState, StateGraph
            from pydantic_ai import Agent
            from pydantic_ai.models.test import TestModel

            pydantic_agent = Agent(TestModel())
            sdk_agent = agents.Agent(name="weather", instructions="Be brief.")

            def reply(state: MessagesState) -> dict:
                return {"messages": [("ai", "hi")]}

            builder = StateGraph(MessagesState)
            builder.add_node("reply", reply)
            builder.add_edge(START, "reply")
            builder.add_edge("reply", END)
            graph = builder.compile()
            client = openai.AsyncOpenAI(api_key="sk-x", base_url="http://127.0.0.1:9/v1")
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return "framework_agents_for_loader_test"


@pytest.mark.parametrize(
    ("attribute", "adapter"),
    [("pydantic_agent", PydanticAIAgent), ("sdk_agent", OpenAIAgentsAgent), ("graph", LangGraphAgent)],
)
def test_the_cli_loader_wraps_each_framework(framework_module: str, attribute: str, adapter: type) -> None:
    assert isinstance(load_agent(f"{framework_module}:{attribute}"), adapter)


@pytest.mark.parametrize(
    ("attribute", "needle"),
    [
        ("builder", "an uncompiled LangGraph StateGraph: serve graph.compile()"),
        ("client", "an OpenAI client, not an agent: serve turnwire.agents.openai_agent"),
    ],
)
def test_near_misses_say_what_to_serve(framework_module: str, attribute: str, needle: str) -> None:
    with pytest.raises(AgentLoadError) as info:
        load_agent(f"{framework_module}:{attribute}")
    assert needle in str(info.value)


def test_create_app_wraps_each_framework(framework_module: str) -> None:
    import importlib

    module = importlib.import_module(framework_module)
    app = create_app(
        agents={"p": module.pydantic_agent, "o": module.sdk_agent, "g": module.graph, "demo": demo_agent}
    )
    served = app.state.turnwire.agents
    assert isinstance(served["p"], PydanticAIAgent)
    assert isinstance(served["o"], OpenAIAgentsAgent)
    assert isinstance(served["g"], LangGraphAgent)
    assert served["demo"] is demo_agent


@pytest.mark.parametrize(
    ("value", "needle"),
    [
        (json.dumps, "dumps, a function that is not an agent"),
        ("my_app:agent", "a value of type str, not a callable agent"),
        (42, "a value of type int"),
    ],
    ids=["json.dumps", "a string", "a number"],
)
def test_create_app_refuses_what_is_not_an_agent_at_start(value: object, needle: str) -> None:
    with pytest.raises(AgentLoadError) as info:
        create_app(agents={"bot": value})  # type: ignore[dict-item]
    message = str(info.value)
    assert message.startswith("agents['bot'] names ")
    assert needle in message
    assert ADAPTER_HINT in message and "turnwire.agents.langgraph_agent(graph)" in message


BASE_INSTALL = """
import sys
for name in ("agents", "langgraph", "langchain_core", "pydantic_ai"):
    sys.modules[name] = None  # an import of any now fails as if not installed
from turnwire.agents import AgentLoadError, load_agent
from turnwire.server.app import create_app
create_app(agents={"demo": load_agent("demo")})
try:
    create_app(agents={"bot": "my_app:agent"})
except AgentLoadError as exc:
    print(exc)
"""


def test_recognition_needs_none_of_the_frameworks() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", BASE_INSTALL], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "agents['bot'] names a value of type str, not a callable agent (for a pydantic_ai"
    )
