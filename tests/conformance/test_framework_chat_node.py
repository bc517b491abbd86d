"""The real useChat code path (ai ``AbstractChat`` + ``DefaultChatTransport``) against a live turnwire
server whose default agent is a framework adapter: an OpenAI Agents SDK agent (Responses API) and a
LangGraph graph (``ChatOpenAI``), both on recorded streams. The same approval round trips (approved,
denied, forged) as the demo's, in chat.test.mjs, unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import openai
import pytest

from langgraph_graphs import weather_graph
from node_runner import run_node_tests
from openai_agents_agents import weather_agent
from openai_fake import fake_openai
from services import serve_app
from turnwire.agents import builtin_agents, langgraph_agent, openai_agents_agent
from turnwire.agents.a2a import a2a_agent
from turnwire.server import Settings, create_app


@pytest.mark.node
@pytest.mark.parametrize("adapter", ["openai-agents", "langgraph"])
def test_use_chat_approval_round_trips_with_a_framework_agent(tmp_path: Path, adapter: str) -> None:
    settings = Settings(approval_secret_file=str(tmp_path / "secret"), keepalive_seconds=0)
    with fake_openai() as fake:
        if adapter == "langgraph":
            agent = langgraph_agent(weather_graph(fake.base_url))
        else:
            client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
            agent = openai_agents_agent(weather_agent(client))
        app = create_app({"bot": agent}, default_agent="bot", settings=settings)
        with serve_app(app) as url:
            passed = run_node_tests("chat.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
        # Each round trip asked the model twice (the call, then the answer); the forged one once.
        assert len(fake.requests) == 5
    assert passed == 3


@pytest.mark.node
def test_use_chat_approval_round_trips_with_a_remote_a2a_agent(tmp_path: Path) -> None:
    """The demo agent behind turnwire's A2A door, served again through ``a2a_agent``: the page's
    approvals become the remote's input-required answers, and back."""
    (tmp_path / "remote").mkdir()
    remote_settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'remote' / 's.db'}",
        approval_secret_file=str(tmp_path / "remote" / "secret"),
        keepalive_seconds=0,
    )
    settings = Settings(approval_secret_file=str(tmp_path / "secret"), keepalive_seconds=0)
    with serve_app(create_app(builtin_agents(), settings=remote_settings), lifespan="on") as remote:
        app = create_app({"far": a2a_agent(remote)}, default_agent="far", settings=settings)
        with serve_app(app) as url:
            passed = run_node_tests("chat.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 3
