"""A chat page that reloads shows the very conversation the user saw, checked on the real client
(ai 7.0.173 ``AbstractChat`` + ``DefaultChatTransport``) against a live server with a store."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app
from turnwire.server import Settings, create_app


def _settings(tmp_path: Path) -> Settings:
    return Settings(
        db_url=f"sqlite:///{tmp_path / 'reload.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        keepalive_seconds=0,
    )


@pytest.mark.node
def test_a_reloaded_chat_equals_what_the_client_assembled(tmp_path: Path) -> None:
    with serve_app(create_app(settings=_settings(tmp_path))) as url:
        passed = run_node_tests("reload.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 1
