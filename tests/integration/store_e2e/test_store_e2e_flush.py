"""SIGKILL while a message streams slower than the flush interval: after a restart the store holds
every word the client got more than one flush interval before the kill (a delta schedules its own
flush; before, the store kept the first word until the message ended)."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from pathlib import Path

import httpx
import orjson
from store_e2e_agents import word
from store_e2e_server import turnwire_process

FLUSH = 0.1
PAUSE = 0.15
SLACK = 0.25
"""Scheduling slack on a loaded 2-core machine, on top of the flush interval."""


def _chat(
    url: str, chat_id: str, text: str, deltas: list[tuple[float, str]], enough: threading.Event
) -> None:
    body = {
        "id": chat_id,
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}],
    }
    try:
        with httpx.stream("POST", f"{url}/agents/paced/chat", json=body, timeout=60) as r:
            for line in r.iter_lines():
                if line.startswith("data: {"):
                    chunk = orjson.loads(line[6:])
                    if chunk["type"] == "text-delta":
                        deltas.append((time.monotonic(), chunk["delta"]))
                        if len(deltas) >= 8:
                            enough.set()
    except httpx.HTTPError:
        pass  # killed under us
    finally:
        enough.set()


def test_sigkill_loses_at_most_the_last_flush_interval(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'flush.db'}"
    chat_id = f"paced-{uuid.uuid4().hex}"
    deltas: list[tuple[float, str]] = []
    env = {"TURNWIRE_FLUSH_SECONDS": str(FLUSH)}
    with turnwire_process(db, tmp_path, env=env) as (url, proc):
        enough = threading.Event()
        client = threading.Thread(target=_chat, args=(url, chat_id, f"60 {PAUSE}", deltas, enough))
        client.start()
        assert enough.wait(30)
        time.sleep(PAUSE * 1.5)
        killed_at = time.monotonic()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        client.join(10)
    streamed = "".join(d for _, d in deltas)
    must_have = "".join(d for t, d in deltas if t < killed_at - FLUSH - SLACK)
    assert len(must_have) >= len(word(0)) * 7

    with turnwire_process(db, tmp_path, env=env) as (url, _):
        r = httpx.get(f"{url}/tasks/{chat_id}/messages", params={"format": "agentex"}, timeout=10)
        assert r.status_code == 200, r.text
    said = [
        m["content"]["content"]
        for m in r.json()["messages"]
        if m["content"]["type"] == "text" and m["content"]["author"] == "agent"
    ]
    assert len(said) == 1
    stored = said[0]
    assert streamed.startswith(stored)  # nothing stored the client did not get
    assert stored.startswith(must_have), (len(stored), len(must_have))
