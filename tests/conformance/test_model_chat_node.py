"""The real useChat code path (ai ``AbstractChat`` + ``DefaultChatTransport``) against a live turnwire
server whose default agent is a model adapter (the OpenAI-compatible agent on recorded streams, a
pydantic-ai agent on a scripted model): the same approval round trips (approved, denied, forged) as
the demo's, in chat.test.mjs, unchanged."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from model_tools import model_agent
from node_runner import run_node_tests
from openai_fake import fake_openai
from services import serve_app
from turnwire.server import Settings, create_app


@pytest.mark.node
def test_use_chat_approval_round_trips_with_a_model_agent(tmp_path: Path) -> None:
    settings = Settings(approval_secret_file=str(tmp_path / "secret"), keepalive_seconds=0)
    with fake_openai() as fake:
        app = create_app({"model": model_agent(fake.base_url)}, default_agent="model", settings=settings)
        with serve_app(app) as url:
            passed = run_node_tests("chat.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
        # Each round trip asked the model twice (the call, then the answer); the forged one once.
        assert len(fake.requests) == 5
    assert passed == 3


@pytest.mark.node
def test_use_chat_approval_round_trips_with_a_pydantic_ai_agent(tmp_path: Path) -> None:
    from pydantic_models import scripted_agent
    from turnwire.agents import pydantic_ai_agent

    settings = Settings(approval_secret_file=str(tmp_path / "secret"), keepalive_seconds=0)
    app = create_app({"pyd": pydantic_ai_agent(scripted_agent())}, default_agent="pyd", settings=settings)
    with serve_app(app) as url:
        passed = run_node_tests("chat.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 3
