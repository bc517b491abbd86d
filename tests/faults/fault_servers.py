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
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson

from services import free_port

HERE = Path(__file__).parent
AGENTS = ("paced", "steps", "quiet")
INTERRUPTED = "turnwire.interrupted"


@contextlib.contextmanager
def server(
    home: Path, db_url: str, *args: str, redis: str | None = None, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """``turnwire serve`` on ``db_url`` (and ``redis``) with the fault agents; (base URL, process).

    Its output goes to ``home/serve-<port>.log``, not to a pipe: a server logging its failures
    while a service is down would fill a pipe nobody reads and block on its next log line."""
    agents: list[str] = []
    for name in AGENTS:
        agents += ["--agent", f"{name}=fault_agents:{name}"]
    extra = ["--redis", redis] if redis else []
    home.mkdir(parents=True, exist_ok=True)
    port = free_port()
    full_env = {
        **os.environ,
        "XDG_DATA_HOME": str(home),
        "TURNWIRE_APPROVAL_SECRET_FILE": str(home / "secret"),
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        "TURNWIRE_WRITER_LEASE_SECONDS": "3",
        **(env or {}),
    }
    cmd = [sys.executable, "-c", "from turnwire.cli import app; app()", "serve", "--port", str(port)]
    cmd += ["--db", db_url, "--keepalive", "1", *agents, *extra, *args]
    log = open(home / f"serve-{port}.log", "wb")  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(cmd, env=full_env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                said = (home / f"serve-{port}.log").read_text()[-3000:]
                raise RuntimeError("turnwire serve exited:\n" + said)
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("turnwire serve did not answer /health within 60 s")
            time.sleep(0.05)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()


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
            kind = f.get("type")
            if kind == "message_delta":
                out.append(f["data"]["delta"])
            elif kind in ("text-delta", "TEXT_MESSAGE_CONTENT"):
                out.append(f["delta"])
            elif kind is None and f.get("choices"):
                out.append(f["choices"][0].get("delta", {}).get("content") or "")
        return "".join(out)


def _ending(frames: list[dict[str, Any]], done_line: bool) -> str:
    """How a stream of any door ended, from its frames (and whether ``data: [DONE]`` came)."""
    kinds = [f.get("type") for f in frames]
    if "error" in kinds or "RUN_ERROR" in kinds or any("error" in f and "type" not in f for f in frames):
        return "error"
    if kinds and kinds[-1] in ("done", "RUN_FINISHED"):
        return "complete"
    if done_line:  # Vercel (after its finish chunk) and OpenAI
        return "complete" if not kinds or kinds[-1] in ("finish", None) else "cut"
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


def agui_body(thread: str, text: str) -> dict[str, Any]:
    message = {"id": f"u-{thread}", "role": "user", "content": text}
    return {"threadId": thread, "runId": f"r-{thread}", "messages": [message]}


def openai_body(agent: str, text: str) -> dict[str, Any]:
    return {"model": agent, "messages": [{"role": "user", "content": text}], "stream": True}


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
