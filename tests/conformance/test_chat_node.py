"""The real useChat code path (ai 7.0.173 ``AbstractChat`` + ``DefaultChatTransport``) against a
live turnwire server: approval round trips, approved and denied, end in one assistant message."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app
from turnwire.server import Settings, create_app


@pytest.mark.node
def test_use_chat_approval_round_trips_on_the_real_client(tmp_path: Path) -> None:
    settings = Settings(approval_secret_file=str(tmp_path / "secret"), keepalive_seconds=0)
    with serve_app(create_app(settings=settings)) as url:
        passed = run_node_tests(
            "chat.test.mjs", {**os.environ, "SERVER_URL": url, "DEMO_AGENT": "1"}, timeout=120
        )
    assert passed == 4
