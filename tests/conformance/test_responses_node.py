"""The official ``openai`` npm package's Responses client (batch, ``responses.stream`` helper,
raw event stream, ``previous_response_id``, an approval) against a live turnwire server."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app
from turnwire.server import Settings, create_app


@pytest.mark.node
def test_the_openai_npm_client_speaks_responses_with_turnwire(tmp_path: Path) -> None:
    settings = Settings(
        approval_secret_file=str(tmp_path / "secret"),
        db_url=f"sqlite:///{tmp_path / 'turnwire.db'}",
        keepalive_seconds=0,
    )
    with serve_app(create_app(settings=settings)) as url:
        passed = run_node_tests("responses.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 5
