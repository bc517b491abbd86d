"""The real useChat code path (ai 7.0.173 ``AbstractChat`` + ``DefaultChatTransport``) against a
live turnwire server: approval round trips, approved and denied, end in one assistant message."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest
import uvicorn

from services import free_port
from turnwire.server import Settings, create_app

NODE_DIR = Path(__file__).parent / "node"


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the useChat conformance test needs node >= 20 and npm on PATH")
    if not (NODE_DIR / "node_modules" / "ai" / "package.json").exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not installed: cannot run `npm ci` in tests/conformance/node")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True, text=True
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in {NODE_DIR}:\n{done.stdout}\n{done.stderr}")
    return node


@pytest.mark.node
def test_use_chat_approval_round_trips_on_the_real_client(tmp_path: Path) -> None:
    node = _node()
    settings = Settings(approval_secret_file=str(tmp_path / "secret"), keepalive_seconds=0)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings=settings), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        env = {**os.environ, "SERVER_URL": f"http://127.0.0.1:{port}"}
        done = subprocess.run(
            [node, "--test", "--test-reporter=tap", "chat.test.mjs"],
            cwd=NODE_DIR,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        server.should_exit = True
        thread.join(10)
    if done.returncode != 0:
        pytest.fail("node --test chat.test.mjs failed:\n" + done.stdout[-20000:] + done.stderr[-5000:])
    assert "# fail 0" in done.stdout
    assert "# pass 3" in done.stdout, done.stdout[-3000:]
