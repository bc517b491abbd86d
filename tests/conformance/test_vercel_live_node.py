"""The real ``ai`` clients (7.0.173, and the strict 6.0.0 / 5.0.100 schemas) read the Vercel streams
of a live ``turnwire serve`` process: every chunk through ``parseJsonEventStream`` +
``uiMessageChunkSchema``, assembled with ``readUIMessageStream``, history + reply through
``validateUIMessages``; approvals answered with the id the server sent.

Two servers: one with the default client-version setting, reached with and without an
``x-ai-sdk-version`` header, and one started with ``--vercel-client-version 5``.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from vercel_live_scenarios import LIVE_SCENARIOS

from node_runner import run_node_tests
from services import turnwire_process

SERVER_LANES: dict[str, list[dict[str, Any]]] = {
    # server started without --vercel-client-version: the setting each lane names travels in the header
    "default": [
        {"setting": "default", "package": "ai", "skipApproval": False},
        {"setting": "default", "package": "ai-v6", "skipApproval": False},
        # ai 5 cannot take approval chunks, which the default setting sends (docs/vercel.md).
        {"setting": "default", "package": "ai-v5", "skipApproval": True},
        {"setting": "5", "package": "ai-v5", "skipApproval": False},
        {"setting": "6", "package": "ai-v6", "skipApproval": False},
        {"setting": "7", "package": "ai", "skipApproval": False},
    ],
    # --vercel-client-version 5: no header gets v5 streams, a 7 header still gets v7 streams
    "5": [
        {"setting": "default", "target": "5", "package": "ai-v5", "skipApproval": False},
        {"setting": "7", "package": "ai", "skipApproval": False},
    ],
}


@contextlib.contextmanager
def turnwire_serve(home: Path, *extra: str) -> Iterator[str]:
    """``turnwire serve`` with its own SQLite file under ``home`` and no keepalive; yields its URL."""
    args = ("--db", f"sqlite+aiosqlite:///{home / 'store.db'}", "--keepalive", "0", *extra)
    env = {k: v for k, v in os.environ.items() if k != "TURNWIRE_VERCEL_CLIENT_VERSION"}
    with turnwire_process(home, *args, env=env) as (url, _):
        yield url


@pytest.mark.node
@pytest.mark.parametrize("server_setting", list(SERVER_LANES))
def test_real_ai_clients_read_the_live_servers_vercel_streams(tmp_path: Path, server_setting: str) -> None:
    lanes = SERVER_LANES[server_setting]
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    spec = {"lanes": lanes, "scenarios": LIVE_SCENARIOS, "histories": {}}
    (corpus / "expectations.json").write_bytes(orjson.dumps(spec))
    extra = () if server_setting == "default" else ("--vercel-client-version", server_setting)
    with turnwire_serve(tmp_path, *extra) as url:
        env = {**os.environ, "TURNWIRE_VERCEL_CORPUS": str(corpus), "SERVER_URL": url}
        passed = run_node_tests("stream.test.mjs", env)
    expected = sum(
        1
        for lane in lanes
        for scenario in LIVE_SCENARIOS.values()
        if not (lane["skipApproval"] and scenario.get("approval"))
    )
    assert passed == expected, f"node ran {passed} tests, expected {expected}"
