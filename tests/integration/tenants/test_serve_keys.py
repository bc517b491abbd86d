"""``turnwire serve`` with and without API keys: what it says at start, and what it then refuses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx

from services import free_port, turnwire_process

KEY = "serve-key-" + "k" * 20


def _stop(proc: subprocess.Popen[bytes]) -> str:
    proc.terminate()
    _, err = proc.communicate(timeout=15)
    return err.decode()


def test_an_open_interface_without_keys_gets_a_loud_warning(tmp_path: Path) -> None:
    with turnwire_process(tmp_path, "--host", "0.0.0.0") as (url, proc):
        assert httpx.get(f"{url}/tasks").status_code == 200  # unauthenticated, as it warned
        err = _stop(proc)
    assert "WARNING: listening on 0.0.0.0 WITHOUT API KEYS" in err


def test_keys_are_required_on_every_route_but_health(tmp_path: Path) -> None:
    with turnwire_process(tmp_path, "--host", "0.0.0.0", "--api-key", f"ops:{KEY}") as (url, proc):
        assert httpx.get(f"{url}/tasks").status_code == 401
        assert httpx.get(f"{url}/tasks", headers={"authorization": f"Bearer {KEY}"}).status_code == 200
        err = _stop(proc)
    assert "WITHOUT API KEYS" not in err


def test_serve_on_loopback_says_it_is_unauthenticated_without_alarm(tmp_path: Path) -> None:
    cmd = [sys.executable, "-c", "from turnwire.cli import app; app()", "serve", "--port", str(free_port())]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        banner = proc.stdout.readline() + proc.stdout.readline() if proc.stdout else b""
        while proc.stdout and b"auth" not in banner:
            banner += proc.stdout.readline()
    finally:
        err = _stop(proc)
    assert b"auth     none: anyone who can reach 127.0.0.1" in banner
    assert "WARNING" not in err


def test_a_weak_or_malformed_key_stops_serve(tmp_path: Path) -> None:
    for entry, says in (("ops:short", "at least 16 characters"), ("no-tenant", "TENANT:KEY")):
        cmd = [sys.executable, "-c", "from turnwire.cli import app; app()", "serve", "--api-key", entry]
        done = subprocess.run(cmd, capture_output=True, timeout=30, cwd=tmp_path)
        assert done.returncode == 2 and says in done.stderr.decode()


def test_a_mounted_router_checks_keys_without_turnwire_error_handlers() -> None:
    from fastapi import FastAPI

    from services import serve_app
    from turnwire.server import Settings, create_router

    app = FastAPI()
    app.include_router(create_router(settings=Settings(api_keys=f"ops:{KEY}")), prefix="/ai")
    with serve_app(app, lifespan="off") as url:
        assert httpx.get(f"{url}/ai/health").status_code == 200
        refused = httpx.post(f"{url}/ai/invoke", json={})
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"
        assert refused.json()["detail"][0]["loc"] == ["header", "authorization"]
        assert httpx.get(f"{url}/ai/tasks").status_code == 401
        body = {"data": {"inputs": {"messages": [{"role": "user", "content": "hi"}]}}}
        ok = httpx.post(f"{url}/ai/invoke", json=body, headers={"authorization": f"Bearer {KEY}"})
        assert ok.status_code == 200, ok.text
