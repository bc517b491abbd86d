"""Two ``turnwire serve`` processes on one PostgreSQL database. One is SIGKILLed mid-stream and
restarted: only its own cut message is marked interrupted; the other's live stream goes on untouched
and ends whole."""

from __future__ import annotations

import signal
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
from store_e2e_agents import word
from store_e2e_server import turnwire_process

from store_databases import fresh_database

INTERRUPTED = "turnwire.interrupted"
LONG_WORDS = 1500  # 15 s of streaming: far longer than a kill and a restart


def _stream(url: str, session: str, words: int, enough: threading.Event, frames: list[Any]) -> None:
    body = {
        "session_id": session,
        "data": {"inputs": {"messages": [{"role": "user", "content": str(words)}]}},
    }
    try:
        with httpx.stream(
            "POST",
            url + "/agents/long/invoke",
            json=body,
            headers={"accept": "text/event-stream"},
            timeout=60,
        ) as r:
            for line in r.iter_lines():
                if line.startswith("data: ") and line != "data: [DONE]":
                    frames.append(orjson.loads(line[6:]))
                    if len(frames) >= 40:
                        enough.set()
    except httpx.HTTPError:
        pass  # the server was killed under us: expected for one of them
    finally:
        enough.set()


def _stored(url: str, session: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{url}/tasks/{session}/messages", timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["messages"]


def _markers(stored: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        m
        for m in stored
        if m["content"]["type"] == "data" and m["content"]["data"].get("type") == INTERRUPTED
    ]


def test_restarting_a_killed_worker_repairs_only_its_own_streams(postgres_url: str, tmp_path: Path) -> None:
    db = fresh_database("postgres", tmp_path, postgres_url)
    killed_session, live_session = f"killed-{uuid.uuid4().hex[:8]}", f"live-{uuid.uuid4().hex[:8]}"
    killed_frames: list[Any] = []
    live_frames: list[Any] = []
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with turnwire_process(db, tmp_path / "b") as (url_b, _):
        live_ready = threading.Event()
        live = threading.Thread(
            target=_stream, args=(url_b, live_session, LONG_WORDS, live_ready, live_frames)
        )
        with turnwire_process(db, tmp_path / "a") as (url_a, proc_a):
            killed_ready = threading.Event()
            killed = threading.Thread(
                target=_stream, args=(url_a, killed_session, LONG_WORDS, killed_ready, killed_frames)
            )
            live.start()
            killed.start()
            assert live_ready.wait(30) and killed_ready.wait(30)
            time.sleep(0.35)  # a periodic flush of both long messages
            proc_a.send_signal(signal.SIGKILL)
            proc_a.wait(10)
            killed.join(10)

        # Still streaming on B: its message is open and unmarked.
        live_now = _stored(url_b, live_session)
        assert [m["streaming_status"] for m in live_now] == ["DONE", "IN_PROGRESS"]

        with turnwire_process(db, tmp_path / "a") as (url_a, _):
            # The restarted A repaired its previous life before serving...
            cut = _stored(url_a, killed_session)
            assert all(m["streaming_status"] == "DONE" for m in cut)
            [marker] = _markers(cut)
            text = [m for m in cut if m["content"]["type"] == "text" and m["content"]["author"] == "agent"]
            assert marker["content"]["data"]["message_ids"] == [text[0]["id"]]
            full = "".join(word(i) for i in range(LONG_WORDS))
            assert text[0]["content"]["content"] and full.startswith(text[0]["content"]["content"])
            # ...and left B's live stream alone.
            during = _stored(url_a, live_session)
            assert [m["streaming_status"] for m in during] == ["DONE", "IN_PROGRESS"]
            assert not _markers(during)
            assert live.is_alive()

            live.join(60)
            assert not live.is_alive()
            assert any(f["type"] == "message_end" for f in live_frames) or any(
                f["type"] == "done" for f in live_frames
            )
            after = _stored(url_a, live_session)
            assert [m["streaming_status"] for m in after] == ["DONE", "DONE"]
            assert after[1]["content"]["content"] == "".join(word(i) for i in range(LONG_WORDS))
            assert not _markers(after)
