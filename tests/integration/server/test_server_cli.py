"""`turnwire serve` as a real subprocess: it prints its URL and serves the demo agent."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx
from server_wire import invoke_body, sse_events

from services import free_port

TURNWIRE = [sys.executable, "-c", "from turnwire.cli import app; app()"]
ROOT = Path(__file__).resolve().parents[3]


def test_serve_prints_its_url_and_serves_the_configured_agents() -> None:
    port = free_port()
    args = [
        *TURNWIRE,
        "serve",
        "--port",
        str(port),
        "--agent",
        "alias=turnwire.agents.demo:demo_agent",
        "--default-agent",
        "alias",
        "--keepalive",
        "0.2",
        "--db",
        "sqlite+aiosqlite:///:memory:",
    ]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    try:
        assert proc.stdout is not None
        banner = [proc.stdout.readline().decode() for _ in range(8)]
        assert f"http://127.0.0.1:{port}" in banner[0]
        assert any("alias (default)" in line and "demo" in line for line in banner), banner
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 15
        while True:
            try:
                assert httpx.get(f"{url}/health").json() == {"status": "ok"}
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        body = invoke_body([{"role": "user", "content": "sleep 0.5"}])
        r = httpx.post(f"{url}/invoke", json=body, headers={"accept": "text/event-stream"}, timeout=10)
        assert b": keepalive" in r.content  # --keepalive reached the settings
        assert sse_events(r.content)[-1]["type"] == "done"
        r = httpx.post(f"{url}/agents/demo/invoke", json=invoke_body([{"role": "user", "content": "hey"}]))
        assert r.json()["data"]["outputs"]["messages"][-1]["content"] == "You said: hey"
    finally:
        proc.terminate()
        proc.wait(10)


def test_serve_refuses_a_bad_agent_spec() -> None:
    for extra, needle in (
        (["--agent", "nope"], "NAME=module:attr"),
        (["--agent", "x=no_such_module_xyz:agent"], "no_such_module_xyz"),
        (["--default-agent", "ghost"], "ghost"),
    ):
        proc = subprocess.run([*TURNWIRE, "serve", *extra], capture_output=True, timeout=30, cwd=ROOT)
        assert proc.returncode == 2, proc
        assert needle in proc.stderr.decode()
