"""Recording cost: turns/s of a 20-message turn over HTTP, batch and streamed, on SQLite.

Runs ``turnwire serve`` (with ``bench/count_agent.py``'s ``fast`` agent: ``count to 20`` gives 20
one-number messages with no pause) in a subprocess, so client and server do not share a GIL, and
posts turns one after another on fresh sessions. Every turn is recorded in the store; the script
checks the stored conversation of the last turn (the user message plus 20 answers, all DONE).

    .venv/bin/python bench/experiments/bench_recording.py [--turns 300] [--messages 20]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx

BENCH = Path(__file__).resolve().parents[1]  # bench/: count_agent, served from there


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _server(db_url: str, home: str) -> Iterator[str]:
    port = _free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(BENCH), os.environ.get("PYTHONPATH", "")]),
        "XDG_DATA_HOME": home,
    }
    cmd = [sys.executable, "-c", "from turnwire.cli import app; app()", "serve", "--port", str(port)]
    cmd += ["--db", db_url, "--keepalive", "0", "--agent", "fast=count_agent:fast_count"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("turnwire serve did not start")
            time.sleep(0.05)
        yield url
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)


def _body(session: str, n: int) -> dict[str, object]:
    return {
        "session_id": session,
        "data": {"inputs": {"messages": [{"role": "user", "content": f"count to {n}"}]}},
    }


def _run(url: str, turns: int, n: int, accept: str) -> float:
    with httpx.Client(base_url=url, timeout=60) as client:
        for _ in range(10):  # warm-up
            client.post("/agents/fast/invoke", json=_body(uuid.uuid4().hex, n), headers={"accept": accept})
        start = time.perf_counter()
        session = ""
        for _ in range(turns):
            session = uuid.uuid4().hex
            r = client.post("/agents/fast/invoke", json=_body(session, n), headers={"accept": accept})
            r.raise_for_status()
        elapsed = time.perf_counter() - start
        stored = client.get(f"/tasks/{session}/messages").json()["messages"]
        assert len(stored) == n + 1, len(stored)
        assert [m["content"]["content"] for m in stored[1:]] == [str(i) for i in range(1, n + 1)]
        assert all(m["streaming_status"] == "DONE" for m in stored)
    return turns / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--messages", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home, _server(f"sqlite:///{home}/bench.db", home) as url:
        batch = _run(url, args.turns, args.messages, "application/json")
        stream = _run(url, args.turns, args.messages, "text/event-stream")
    print(f"{args.messages}-message turn, SQLite, 1 client, {args.turns} turns each")
    print(f"  batch  (Accept: application/json)   {batch:8.1f} turns/s")
    print(f"  stream (Accept: text/event-stream)  {stream:8.1f} turns/s")


if __name__ == "__main__":
    main()
