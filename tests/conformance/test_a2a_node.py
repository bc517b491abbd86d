"""The real A2A JS client (``@a2a-js/sdk`` 1.3.0) against a live turnwire server: card resolution,
the streaming path (task, artifact chunks with append/lastChunk, final status), get, and an
approval round trip over the stream."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app
from turnwire.server import Settings, create_app


@pytest.mark.node
def test_the_a2a_js_client_streams_gets_and_approves(tmp_path: Path) -> None:
    settings = Settings(
        approval_secret_file=str(tmp_path / "secret"),
        db_url=f"sqlite:///{tmp_path / 'turnwire.db'}",
        keepalive_seconds=0,
    )
    with serve_app(create_app(settings=settings)) as url:
        passed = run_node_tests("a2a.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 3
