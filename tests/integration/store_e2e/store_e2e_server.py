"""``turnwire serve`` as a real child process, for tests that kill it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from services import free_port

HERE = Path(__file__).parent


@contextlib.contextmanager
def turnwire_process(
    db_url: str, home: Path, *extra_args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start ``turnwire serve --db db_url`` (demo, ``slow`` and ``long`` agents, then
    ``extra_args``; ``env`` added to the environment); yield (base URL, process)."""
    port = free_port()
    env = {
        **os.environ,
        **(env or {}),
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        "TURNWIRE_APPROVAL_SECRET_FILE": str(home / "secret"),
        "XDG_DATA_HOME": str(home),
    }
    cmd = [
        sys.executable,
        "-c",
        "from turnwire.cli import app; app()",
        "serve",
        "--port",
        str(port),
        "--db",
        db_url,
        "--keepalive",
        "0",
        "--agent",
        "slow=store_e2e_agents:slow",
        "--agent",
        "long=store_e2e_agents:long",
        *extra_args,
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        if proc.poll() is not None:
            raise RuntimeError("turnwire serve exited:\n" + proc.stderr.read().decode()[-3000:])  # type: ignore[union-attr]
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                break
        if time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError("turnwire serve did not answer /health within 30 s")
        time.sleep(0.05)
    try:
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
