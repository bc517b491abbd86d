"""Real ``turnwire serve`` processes for the fault tests, and clients that record what they saw.

A ``Seen`` is one client's view of one streamed answer: every SSE ``data`` frame, and how the body
ended — ``complete`` (the format's last frame), ``error`` (the format's error frame), ``cut`` (the
body ended with neither: a silently cut stream), or ``died`` (the connection broke: the process
serving it died).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from services import turnwire_process

HERE = Path(__file__).parent
AGENTS = ("paced", "steps", "quiet")
INTERRUPTED = "turnwire.interrupted"


@contextlib.contextmanager
def server(
    home: Path, db_url: str, *args: str, redis: str | None = None, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``turnwire serve`` on ``db_url`` (and ``redis``) with the fault agents; (base URL, process)."""
    agents: list[str] = []
    for name in AGENTS:
        agents += ["--agent", f"{name}=fault_agents:{name}"]
    extra = ["--redis", redis] if redis else []
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    full_env = {"PYTHONPATH": path, "TURNWIRE_WRITER_LEASE_SECONDS": "3", **(env or {})}
    home.mkdir(parents=True, exist_ok=True)
    cmd = ("--db", db_url, "--keepalive", "1", *agents, *extra, *args)
    with turnwire_process(home, *cmd, env=full_env) as running:
        yield running


@dataclass
class Seen:
    """What one client saw of one streamed answer."""

    status: int = 0
    frames: list[dict[str, Any]] = field(default_factory=list)
    ended: str = ""  # complete / error / cut / died
    headers: dict[str, str] = field(default_factory=dict)
    started: threading.Event = field(default_factory=threading.Event)

    def text(self) -> str:
        """The text deltas it got, in order (Agenta and Vercel frames)."""
        out = []
        for f in self.frames:
            if f.get("type") == "message_delta":
                out.append(f["data"]["delta"])
            elif f.get("type") == "text-delta":
                out.append(f["delta"])
        return "".join(out)


def _ending(frames: list[dict[str, Any]], done_line: bool) -> str:
    kinds = [f.get("type") for f in frames]
    if "error" in kinds:
        return "error"
    if done_line or (kinds and kinds[-1] == "done"):
        return "complete"
    return "cut"


def stream(
    method: str,
    url: str,
    seen: Seen,
    *,
    json: Any = None,
    timeout: float = 60,
    headers: dict[str, str] | None = None,
) -> None:
    """Read one SSE answer into ``seen`` (run it in a thread)."""
    done_line = False
    try:
        with httpx.stream(
            method,
            url,
            json=json,
            headers={"accept": "text/event-stream", **(headers or {})},
            timeout=timeout,
        ) as r:
            seen.status, seen.headers = r.status_code, dict(r.headers)
            seen.started.set()
            for line in r.iter_lines():
                if line == "data: [DONE]":
                    done_line = True
                elif line.startswith("data: "):
                    seen.frames.append(orjson.loads(line[6:]))
                    seen.started.set()
        seen.ended = _ending(seen.frames, done_line) if seen.status == 200 else "refused"
    except httpx.HTTPError:
        seen.ended = "died"
    finally:
        seen.started.set()


def in_thread(target: Any, *args: Any, **kwargs: Any) -> threading.Thread:
    thread = threading.Thread(target=target, args=args, kwargs=kwargs, daemon=True)
    thread.start()
    return thread


def invoke_body(session: str, text: str) -> dict[str, Any]:
    return {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}


def chat_body(chat_id: str, text: str, message_id: str = "u1") -> dict[str, Any]:
    return {
        "id": chat_id,
        "messages": [{"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}],
    }


def stored(url: str, session: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{url}/tasks/{session}/messages", params={"format": "agentex"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["messages"]


def markers(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        m
        for m in messages
        if m["content"]["type"] == "data" and m["content"]["data"].get("type") == INTERRUPTED
    ]


def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)
