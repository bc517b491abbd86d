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
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from vercel_live_scenarios import LIVE_SCENARIOS

from node_runner import run_node_tests
from services import free_port

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
    """A real ``turnwire serve`` child process on a free loopback port with its own SQLite file
    and approval secret under ``home``; yields its base URL and stops it afterwards."""
    port = free_port()
    env = {
        **os.environ,
        "TURNWIRE_APPROVAL_SECRET_FILE": str(home / "secret"),
        "XDG_DATA_HOME": str(home),
    }
    env.pop("TURNWIRE_VERCEL_CLIENT_VERSION", None)
    cmd = [
        sys.executable,
        "-c",
        "from turnwire.cli import app; app()",
        "serve",
        "--port",
        str(port),
        "--db",
        f"sqlite+aiosqlite:///{home / 'store.db'}",
        "--keepalive",
        "0",
        *extra,
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if proc.poll() is not None:
                stderr = proc.stderr.read().decode() if proc.stderr else ""
                pytest.fail("turnwire serve exited:\n" + stderr[-3000:])
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                pytest.fail("turnwire serve did not answer /health within 30 s")
            time.sleep(0.05)
        yield url
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


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
