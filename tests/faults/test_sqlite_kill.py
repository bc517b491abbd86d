"""SIGKILL of a single server on SQLite, then a restart: a turn cut between two messages is marked
interrupted like one cut mid-message, nothing stays IN_PROGRESS, and the session goes on."""

from __future__ import annotations

import signal
import sqlite3
import uuid
from pathlib import Path

import httpx
from fault_servers import Seen, in_thread, invoke_body, markers, server, stored, stream, wait_for


def test_a_turn_killed_between_two_messages_is_marked_interrupted(tmp_path: Path) -> None:
    db = tmp_path / "faults.db"
    db_url = f"sqlite:///{db}"
    between, inside = f"between-{uuid.uuid4().hex}", f"inside-{uuid.uuid4().hex}"
    seen_between, seen_inside = Seen(), Seen()
    with server(tmp_path / "home", db_url) as (url, proc):
        threads = [
            # Two whole messages, then 30 s of silence before the third: killed in the silence.
            in_thread(
                stream, "POST", url + "/agents/steps/invoke", seen_between, json=invoke_body(between, "2 30")
            ),
            # One message streaming a word every 50 ms: killed mid-message.
            in_thread(
                stream,
                "POST",
                url + "/agents/paced/invoke",
                seen_inside,
                json=invoke_body(inside, "400 0.05"),
            ),
        ]
        wait_for(
            lambda: "step 1" in seen_between.text() and len(seen_inside.text()) > 20,
            15,
            "both turns streaming",
        )
        wait_for(lambda: len(stored(url, between)) >= 3, 5, "the two whole messages stored")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        for t in threads:
            t.join(10)
    assert seen_between.ended == seen_inside.ended == "died"

    with server(tmp_path / "home", db_url) as (url, _):
        # Between messages: both whole messages kept, then a marker naming no cut message.
        messages = stored(url, between)
        texts = [m["content"].get("content") for m in messages if m["content"]["type"] == "text"]
        assert texts == ["2 30", "step 0", "step 1"]
        found = markers(messages)
        assert len(found) == 1 and found[0] is messages[-1]
        assert found[0]["content"]["data"]["message_ids"] == []
        # Mid-message: the cut message is named, holds a prefix of what the client saw.
        messages = stored(url, inside)
        found = markers(messages)
        cut = [m for m in messages if m["content"]["type"] == "text" and m["content"]["author"] == "agent"]
        assert len(found) == 1 and found[0]["content"]["data"]["message_ids"] == [cut[0]["id"]]
        assert seen_inside.text().startswith(cut[0]["content"]["content"])
        # The session goes on: a new turn on it completes and is stored once.
        again = Seen()
        stored_history = {"x-ag-history": "stored"}
        stream(
            "POST",
            url + "/agents/steps/invoke",
            again,
            json=invoke_body(between, "0 0"),
            headers=stored_history,
        )
        assert again.ended == "complete" and again.text() == "step 0"
        after = [m["content"].get("content") for m in stored(url, between)]
        assert after[-2:] == ["0 0", "step 0"] and after.count("step 1") == 1
        r = httpx.get(url + "/health", timeout=5)
        assert r.status_code == 200
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        open_rows = conn.execute("SELECT count(*) FROM messages WHERE streaming_status != 'DONE'").fetchone()[
            0
        ]
        assert open_rows == 0
        assert conn.execute("SELECT count(*) FROM open_turns").fetchone()[0] == 0
