"""AI SDK 7 on the `7` lane against a live server (the demo agent): the approval ``signature`` round
trip on the real ai 7.0.173 ``AbstractChat``, and a history of every ai 7 part type and tool state
(accepted by ai 7's ``validateUIMessages``) taken by ``/chat`` and read back as ai 7 accepts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app
from turnwire.server import Settings, create_app


@pytest.mark.node
def test_ai_7_signatures_and_every_ai_7_part_on_the_real_client(tmp_path: Path) -> None:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'ai7.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        keepalive_seconds=0,
    )
    with serve_app(create_app(settings=settings)) as url:
        passed = run_node_tests("ai7.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 4
