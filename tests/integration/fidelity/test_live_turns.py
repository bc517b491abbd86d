"""Running turns: a /chat turn outlives its connection and is resumed from its first chunk; stop
cancels it and stores its partial reply; an Agenta batch turn whose client leaves is cancelled
(unless the request says ``x-ag-on-disconnect: continue``)."""

from __future__ import annotations

import sqlite3
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from fidelity_wire import sse_chunks, stored, user

COUNT = 40
FULL = "".join(f"{i} " for i in range(1, COUNT + 1))


def _text(chunks: list[dict[str, Any]]) -> str:
    return "".join(c["delta"] for c in chunks if c["type"] == "text-delta")


def _start_chat(server: str, chat_id: str, text: str, keep: int) -> list[str]:
    """POST a /chat turn to the counter, read ``keep`` data lines, then hang up."""
    lines: list[str] = []
    body = {"id": chat_id, "message": user("u1", text)}
    with httpx.stream("POST", f"{server}/agents/counter/chat", json=body, timeout=30) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if line.startswith("data: "):
                lines.append(line)
                if len(lines) >= keep:
                    break
    return lines


def _resume(server: str, chat_id: str) -> httpx.Response:
    return httpx.get(f"{server}/agents/counter/chat/{chat_id}/stream", timeout=30)


def test_resume_is_204_when_no_turn_runs(server: str) -> None:
    r = _resume(server, f"idle-{uuid.uuid4().hex}")
    assert r.status_code == 204 and r.content == b""


def test_a_chat_turn_outlives_its_connection_and_resumes_from_its_first_chunk(server: str) -> None:
    chat_id = f"resume-{uuid.uuid4().hex}"
    first = _start_chat(server, chat_id, f"count to {COUNT}", keep=8)
    r = _resume(server, chat_id)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["x-vercel-ai-ui-message-stream"] == "v1"
    lines = [line for line in r.text.splitlines() if line.startswith("data: ")]
    assert lines[: len(first)] == first  # the same chunks, from the first one
    chunks = sse_chunks(lines)
    assert [c["type"] for c in chunks][:2] == ["start", "start-step"]
    assert _text(chunks) == FULL  # every chunk once
    assert chunks[-1]["type"] == "finish" and lines[-1] == "data: [DONE]"
    assert _resume(server, chat_id).status_code == 204  # over: nothing to resume
    said = [p["text"] for m in stored(server, chat_id, "vercel") for p in m["parts"] if p["type"] == "text"]
    assert said == [f"count to {COUNT}", FULL]


def test_stop_cancels_the_turn_stores_its_partial_reply_and_ends_the_resumed_stream(
    server: str, store_path: Path
) -> None:
    chat_id = f"stop-{uuid.uuid4().hex}"
    _start_chat(server, chat_id, "count to 400", keep=6)
    with httpx.stream("GET", f"{server}/agents/counter/chat/{chat_id}/stream", timeout=30) as resumed:
        assert resumed.status_code == 200
        lines = resumed.iter_lines()
        for line in lines:
            if line.startswith("data: ") and "text-delta" in line:
                break
        r = httpx.post(f"{server}/agents/counter/chat/{chat_id}/stop", timeout=30)
        assert r.status_code == 200 and r.json() == {"id": chat_id, "stopped": True}
        rest = [line for line in lines if line.startswith("data: ")]
    assert rest[-1] == "data: [DONE]"
    tail = sse_chunks(rest)
    assert tail[-1]["type"] == "finish" and "error" not in [c["type"] for c in tail]
    assert _resume(server, chat_id).status_code == 204
    said = [p["text"] for m in stored(server, chat_id, "vercel") for p in m["parts"] if p["type"] == "text"]
    full = "".join(f"{i} " for i in range(1, 401))
    assert len(said) == 2 and said[1] and full.startswith(said[1]) and len(said[1]) < len(full)
    assert _stop_reasons(store_path, chat_id) == ["cancelled"]  # marked stopped
    r = httpx.post(f"{server}/agents/counter/chat/{chat_id}/stop", timeout=30)
    assert r.json() == {"id": chat_id, "stopped": False}


def _stop_reasons(store_path: Path, session: str) -> list[str]:
    with sqlite3.connect(store_path) as db:
        rows = db.execute(
            "SELECT m.note FROM messages m JOIN tasks t ON t.id = m.task_id WHERE t.name = ? ORDER BY m.seq",
            (session,),
        ).fetchall()
    notes = [orjson.loads(note) if note else {} for (note,) in rows]
    return [n["stop_reason"] for n in notes if "stop_reason" in n]


def _invoke_body(session: str, text: str) -> dict[str, Any]:
    return {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}


def _agent_text(server: str, session: str) -> str:
    contents = [m["content"] for m in stored(server, session, "agentex")]
    texts = [c["content"] for c in contents if c["type"] == "text" and c["author"] == "agent"]
    return texts[0] if texts else ""


def _settled_text(server: str, session: str) -> str:
    """The agent's stored text once it stops changing (the turn is over)."""
    last, deadline = None, time.monotonic() + 20
    while time.monotonic() < deadline:
        text = _agent_text(server, session)
        if text and text == last:
            return text
        last = text
        time.sleep(0.4)
    raise AssertionError("the stored reply kept changing")


@pytest.mark.parametrize("accept", ["application/json", "text/event-stream", "application/x-ndjson"])
def test_an_agenta_turn_whose_client_leaves_is_cancelled_and_its_partial_reply_stored(
    server: str, accept: str
) -> None:
    session = f"gone-{uuid.uuid4().hex}"
    try:
        with httpx.stream(
            "POST",
            f"{server}/agents/counter/invoke",
            json=_invoke_body(session, "count to 400"),
            headers={"accept": accept},
            timeout=httpx.Timeout(30, read=0.6),
        ) as r:
            for n, _ in enumerate(r.iter_bytes()):
                if n == 5:
                    break  # a stream: hang up after a few chunks
    except httpx.ReadTimeout:
        assert accept == "application/json"  # a batch: give up waiting for the answer
    text = _settled_text(server, session)
    full = "".join(f"{i} " for i in range(1, 401))
    assert full.startswith(text) and len(text) < len(full) / 2


def test_a_batch_turn_asked_to_continue_without_its_client_runs_to_its_end(server: str) -> None:
    session = f"on-{uuid.uuid4().hex}"
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(
            f"{server}/agents/counter/invoke",
            json=_invoke_body(session, f"count to {COUNT}"),
            headers={"accept": "application/json", "x-ag-on-disconnect": "continue"},
            timeout=httpx.Timeout(30, read=0.4),
        )
    assert _settled_text(server, session) == FULL


def test_a_bad_on_disconnect_header_is_a_400_naming_it(server: str) -> None:
    r = httpx.post(
        f"{server}/invoke",
        json=_invoke_body(f"bad-{uuid.uuid4().hex}", "hi"),
        headers={"x-ag-on-disconnect": "later"},
        timeout=10,
    )
    assert r.status_code == 400 and r.json()["detail"][0]["loc"] == ["header", "x-ag-on-disconnect"]


def test_agentex_task_cancel_stops_a_running_message_send_and_stores_its_partial_reply(
    server: str, store_path: Path
) -> None:
    rpc = f"{server}/agents/name/counter/rpc"
    name = f"cancel-{uuid.uuid4().hex}"
    task = httpx.post(rpc, json={"method": "task/create", "params": {"name": name}}, timeout=10).json()[
        "result"
    ]
    content = {"type": "text", "author": "user", "content": "count to 400"}
    params = {"task_id": task["id"], "content": content, "stream": True}
    frames: list[dict[str, Any]] = []
    with httpx.stream("POST", rpc, json={"method": "message/send", "params": params}, timeout=30) as r:
        lines = r.iter_lines()
        for line in lines:
            frames.append(orjson.loads(line))
            if len(frames) >= 5:
                break
        cancel = httpx.post(
            rpc, json={"method": "task/cancel", "params": {"task_id": task["id"]}}, timeout=30
        )
        assert cancel.json()["result"]["status"] == "CANCELED"
        frames.extend(orjson.loads(line) for line in lines if line)  # the stream ends on its own
    assert all(f["error"] is None for f in frames)
    done = [f["result"] for f in frames if f["result"]["type"] == "done"]
    assert done and done[-1]["parent_task_message"]["streaming_status"] == "DONE"
    said = _agent_text(server, name)
    full = "".join(f"{i} " for i in range(1, 401))
    assert said and full.startswith(said) and len(said) < len(full)
    assert _stop_reasons(store_path, name) == ["cancelled"]
