"""SIGTERM to a real ``turnwire serve`` with open streams: the process exits within seconds, every
stream ends with its closing frames, and the cut turn is stored. On SQLite and PostgreSQL."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from store_e2e_server import turnwire_process

from store_databases import BACKENDS, fresh_database

EXIT_WITHIN = 5.0


def _post_batch(url: str, body: Any, out: list[Any]) -> None:
    try:
        out.append(httpx.post(url + "/agents/long/invoke", json=body, timeout=60))
    except httpx.HTTPError as exc:
        out.append(exc)


def _read_sse(url: str, method: str, path: str, body: Any, started: threading.Event, out: list[Any]) -> None:
    """Collect the ``data:`` payloads of one SSE answer until it ends; ``"closed"`` last if it
    ended cleanly (the server finished the body), ``"cut"`` if the connection broke."""
    try:
        with httpx.stream(
            method, url + path, json=body, headers={"accept": "text/event-stream"}, timeout=60
        ) as r:
            if r.status_code != 200:  # named in the assertion that fails, with what the server said
                out.append(f"status {r.status_code}: {r.read()[:300]!r}")
                return
            for line in r.iter_lines():
                if line.startswith("data: "):
                    out.append(line[6:] if line == "data: [DONE]" else orjson.loads(line[6:]))
                    started.set()
        out.append("closed")
    except httpx.HTTPError:
        out.append("cut")
    finally:
        started.set()


@pytest.mark.parametrize("backend", BACKENDS)
def test_sigterm_ends_open_streams_and_exits_promptly(
    backend: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    pg = request.getfixturevalue("postgres_url") if backend == "postgres" else None
    db_url = fresh_database(backend, tmp_path, pg)
    session = f"bye-{uuid.uuid4().hex}"
    chat = {
        "id": session,
        "trigger": "submit-message",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "1500"}]}],
    }
    batch = {
        "session_id": f"{session}-b",
        "data": {"inputs": {"messages": [{"role": "user", "content": "1500"}]}},
    }
    batch_answer: list[Any] = []
    chat_frames: list[Any] = []
    task_frames: list[Any] = []
    with turnwire_process(db_url, tmp_path / "home") as (url, proc):
        chat_started, task_started = threading.Event(), threading.Event()
        readers = [
            threading.Thread(
                target=_read_sse, args=(url, "POST", "/agents/long/chat", chat, chat_started, chat_frames)
            )
        ]
        readers.append(threading.Thread(target=_post_batch, args=(url, batch, batch_answer)))
        for t in readers:
            t.start()
        assert chat_started.wait(20)
        time.sleep(0.3)  # some words streamed
        readers.append(
            threading.Thread(
                target=_read_sse,
                args=(url, "GET", f"/tasks/{session}/stream", None, task_started, task_frames),
            )
        )
        readers[-1].start()
        assert task_started.wait(20) and task_frames[0]["type"] == "connected"
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        took = time.monotonic() - sent
        for t in readers:
            t.join(10)
    assert took < EXIT_WITHIN, f"the server took {took:.1f} s to exit"
    assert proc.returncode is not None
    # The chat stream ended as a stream does: its finish chunk, then [DONE], then a clean close.
    assert chat_frames[-1] == "closed", chat_frames[-3:]
    assert chat_frames[-2] == "[DONE]" and chat_frames[-3]["type"] == "finish", chat_frames[-4:]
    said = "".join(f["delta"] for f in chat_frames[:-2] if isinstance(f, dict) and f["type"] == "text-delta")
    assert said.startswith("w0 w1 ") and len(said.split()) < 1500  # cut mid-turn, not finished
    # The batch turn answered with what it had, stopped as cancelled.
    (answer,) = batch_answer
    assert isinstance(answer, httpx.Response) and answer.status_code == 200, answer
    assert answer.json()["data"]["outputs"]["stop_reason"] == "cancelled", answer.text[:300]
    # The task stream got a last event saying why, then ended cleanly.
    assert task_frames[-1] == "closed" and task_frames[-2]["type"] == "error", task_frames[-3:]
    assert "shutting down" in task_frames[-2]["message"]

    with turnwire_process(db_url, tmp_path / "home") as (url, _):
        r = httpx.get(f"{url}/tasks/name/{session}/messages", params={"format": "agentex"}, timeout=10)
        stored = r.json()["messages"]
    # The turn is stored: the user's message and what the agent said before the stop, all closed.
    assert stored[0]["content"]["content"] == "1500"
    assert all(m["streaming_status"] == "DONE" for m in stored), stored
    texts = [m["content"].get("content") for m in stored[1:] if m["content"]["type"] == "text"]
    assert texts and texts[0].startswith("w0 w1 ") and said.startswith(texts[0].rstrip()[:20])


def test_sigterm_with_two_workers_ends_the_streams_of_each(tmp_path: Path) -> None:
    """``--workers 2``: the supervisor hands SIGTERM to each worker, whose streams end at once."""
    db_url = fresh_database("sqlite", tmp_path, None)
    streams: list[list[Any]] = [[], []]
    with turnwire_process(db_url, tmp_path / "home", "--workers", "2") as (url, proc):
        started = [threading.Event(), threading.Event()]
        readers = []
        for i in range(2):
            chat = {
                "id": f"workers-{i}-{uuid.uuid4().hex}",
                "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "1500"}]}],
            }
            args = (url, "POST", "/agents/long/chat", chat, started[i], streams[i])
            readers.append(threading.Thread(target=_read_sse, args=args))
            readers[-1].start()
        assert all(e.wait(20) for e in started)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
        took = time.monotonic() - sent
        for t in readers:
            t.join(10)
    assert took < EXIT_WITHIN, f"the server took {took:.1f} s to exit"
    for frames in streams:
        assert frames[-2:] == ["[DONE]", "closed"], frames[-3:]
