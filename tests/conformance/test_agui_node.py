"""The real AG-UI client (``@ag-ui/client`` 1.0.0 ``HttpAgent``, with its event verifier) against a
live turnwire server: text and tool calls, approval and user-input interrupts resumed, and the
thread read back with ``?format=agui`` equal to what the client holds, ids included; and the
OpenAI Agents SDK, LangGraph and pydantic-ai adapters on recorded model streams (a tool round, an
approval approved and denied)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from framework_agents import framework_agent
from node_runner import run_node_tests
from openai_fake import fake_openai
from services import serve_app
from turnwire.server import Settings, create_app


@pytest.mark.node
def test_agui_http_agent_runs_and_resumes_on_the_real_client(tmp_path: Path) -> None:
    settings = Settings(
        approval_secret_file=str(tmp_path / "secret"),
        db_url=f"sqlite:///{tmp_path / 'turnwire.db'}",
        keepalive_seconds=0,
    )
    with serve_app(create_app(settings=settings)) as url:
        passed = run_node_tests("agui.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 6


@pytest.mark.node
@pytest.mark.parametrize("adapter", ["openai-agents", "langgraph", "pydantic-ai"])
def test_agui_http_agent_with_a_framework_agent(tmp_path: Path, adapter: str) -> None:
    settings = Settings(
        approval_secret_file=str(tmp_path / "secret"),
        db_url=f"sqlite:///{tmp_path / 'turnwire.db'}",
        keepalive_seconds=0,
    )
    with fake_openai() as fake:
        app = create_app(
            {"bot": framework_agent(adapter, fake.base_url)}, default_agent="bot", settings=settings
        )
        with serve_app(app) as url:
            passed = run_node_tests("agui_framework.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 3
