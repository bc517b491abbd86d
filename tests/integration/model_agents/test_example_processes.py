"""The examples as a reader runs them: ``python examples/weather_openai.py`` against a local
OpenAI-compatible server with no API key, on the example's own port (not ``make run``'s)."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx

from openai_fake import FakeOpenAI
from services import free_port

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def _make_run_port() -> str:
    found = re.search(r"^PORT \?= (\d+)$", (ROOT / "Makefile").read_text(), re.M)
    assert found, "the Makefile names no PORT"
    return found.group(1)


def test_each_example_has_its_own_default_port() -> None:
    ports = {}
    for path in sorted(EXAMPLES.glob("*.py")):
        text = path.read_text()
        if "uvicorn.run(" not in text:
            continue
        found = re.search(r'os\.environ\.get\("PORT", "(\d+)"\)', text)
        assert found, f"{path.name} serves on no default PORT"
        port = found.group(1)
        assert f"http://127.0.0.1:{port}" in text, f"{path.name}'s docstring does not say its port"
        ports[path.name] = port
    assert len(ports) >= 4, ports
    assert _make_run_port() not in ports.values(), ports
    assert len(set(ports.values())) == len(ports), ports


def test_the_openai_example_needs_no_key_against_a_local_server(fake: FakeOpenAI, tmp_path: Path) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "TURNWIRE_"))}
    env |= {"OPENAI_BASE_URL": fake.base_url, "PORT": str(port), "TURNWIRE_DB_URL": str(tmp_path / "x.db")}
    proc = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "weather_openai.py")],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            assert time.monotonic() < deadline, "the example did not answer /health"
            time.sleep(0.05)
        body = {"data": {"inputs": {"messages": [{"role": "user", "content": "weather in Paris"}]}}}
        r = httpx.post(url + "/invoke", json=body, timeout=30)
        assert r.status_code == 200, r.text
        assert r.json()["data"]["outputs"]["messages"][-1]["content"] == "It is sunny and 21 °C in Paris."
        assert fake.headers[-1]["authorization"] == "Bearer unused"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
