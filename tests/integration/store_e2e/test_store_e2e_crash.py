"""SIGKILL in the middle of streamed turns, then a restart: the store is whole, the cut messages are
marked interrupted, and the session goes on. On SQLite and on PostgreSQL."""

from __future__ import annotations

import signal
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
from store_e2e_agents import WORDS, word
from store_e2e_server import turnwire_process

INTERRUPTED = "turnwire.interrupted"


def _stream_until(
    url: str, path: str, body: dict[str, Any], enough: threading.Event, frames: list[Any]
) -> None:
    """POST a streamed turn and collect its SSE frames until the connection dies."""
    try:
        with httpx.stream(
            "POST", url + path, json=body, headers={"accept": "text/event-stream"}, timeout=30
        ) as r:
            for line in r.iter_lines():
                if line.startswith("data: ") and line != "data: [DONE]":
                    frames.append(orjson.loads(line[6:]))
                    if len(frames) >= 40:
                        enough.set()
    except httpx.HTTPError:
        pass  # the server was killed under us: expected
    finally:
        enough.set()


def _conversation(url: str, session: str) -> list[dict[str, Any]]:
    r = httpx.get(f"{url}/tasks/{session}/messages", params={"format": "agentex"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["messages"]


def _crash_and_continue(db_url: str, home: Path) -> None:
    count_session, slow_session = f"count-{uuid.uuid4().hex}", f"slow-{uuid.uuid4().hex}"
    count_frames: list[Any] = []
    slow_frames: list[Any] = []
    with turnwire_process(db_url, home) as (url, proc):
        events = [threading.Event(), threading.Event()]
        threads = [
            threading.Thread(
                target=_stream_until,
                args=(url, "/invoke", _body(count_session, "count to 200"), events[0], count_frames),
            ),
            threading.Thread(
                target=_stream_until,
                args=(url, "/agents/slow/invoke", _body(slow_session, "go"), events[1], slow_frames),
            ),
        ]
        for t in threads:
            t.start()
        for e in events:
            assert e.wait(30)
        time.sleep(0.35)  # at least one periodic flush of the long message
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for t in threads:
            t.join(10)
    assert count_frames and slow_frames
    assert not any(f.get("type") == "done" for f in slow_frames)  # it really was cut mid-stream

    with turnwire_process(db_url, home) as (url, _):
        # Count: the numbers said before the kill, each once, in order, all DONE.
        stored = _conversation(url, count_session)
        assert all(m["streaming_status"] == "DONE" for m in stored)
        assert stored[0]["content"]["content"] == "count to 200"
        cut_ids = {i for m in stored if _is_marker(m) for i in m["content"]["data"]["message_ids"]}
        said = [m for m in stored[1:] if m["content"]["type"] == "text"]
        whole = [m["content"]["content"] for m in said if m["id"] not in cut_ids]
        assert whole == [str(i) for i in range(1, len(whole) + 1)] and 1 <= len(whole) < 200
        # A number cut while streaming holds a prefix of itself and is the last one said.
        cut = [m for m in said if m["id"] in cut_ids]
        assert len(cut) <= 1 and (
            not cut or (said[-1] is cut[0] and str(len(whole) + 1).startswith(cut[0]["content"]["content"]))
        )

        # Slow: the long message is DONE with what was flushed, and a marker names it.
        stored = _conversation(url, slow_session)
        assert [m["streaming_status"] for m in stored] == ["DONE"] * len(stored)
        text_msgs = [
            m for m in stored if m["content"]["type"] == "text" and m["content"]["author"] == "agent"
        ]
        assert len(text_msgs) == 1
        cut = text_msgs[0]["content"]["content"]
        full = "".join(word(i) for i in range(WORDS))
        assert cut and full.startswith(cut) and len(cut) < len(full)
        streamed = "".join(f["data"]["delta"] for f in slow_frames if f["type"] == "message_delta")
        assert streamed.startswith(cut)  # nothing stored that the client did not see
        marker = stored[-1]["content"]
        assert marker["type"] == "data" and marker["data"]["type"] == INTERRUPTED
        assert marker["data"]["message_ids"] == [text_msgs[0]["id"]]

        # The session goes on from the stored history alone.
        r = httpx.post(
            f"{url}/invoke",
            json=_body(count_session, "hello again"),
            headers={"x-ag-history": "stored"},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        assert r.json()["data"]["outputs"]["messages"][-1]["content"] == "You said: hello again"
        after = _conversation(url, count_session)
        assert [m["content"].get("content") for m in after[-3:] if m["content"]["type"] == "text"] == [
            "hello again",
            "You said: hello again",
        ]
        # A second restart finds nothing left to repair: no second marker.
    with turnwire_process(db_url, home) as (url, _):
        stored = _conversation(url, slow_session)
        assert sum(1 for m in stored if m["content"].get("data", {}).get("type") == INTERRUPTED) == 1


def _is_marker(message: dict[str, Any]) -> bool:
    content = message["content"]
    return content["type"] == "data" and content["data"].get("type") == INTERRUPTED


def _body(session: str, text: str) -> dict[str, Any]:
    return {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}


def test_sigkill_mid_stream_on_sqlite_keeps_the_store_whole(tmp_path: Path) -> None:
    db = tmp_path / "crash.db"
    _crash_and_continue(f"sqlite:///{db}", tmp_path)
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for (content,) in conn.execute("SELECT content FROM messages"):
            orjson.loads(content)  # no half-written JSON
        assert (
            conn.execute("SELECT count(*) FROM messages WHERE streaming_status != 'DONE'").fetchone()[0] == 0
        )


def test_sigkill_mid_stream_on_postgresql_keeps_the_store_whole(postgres_url: str, tmp_path: Path) -> None:
    _crash_and_continue(postgres_url, tmp_path)
