"""Two ``turnwire serve --redis URL`` processes on one database and one real Redis: a turn streamed
through one is relayed live by ``/tasks/{id}/stream`` of the other, and its deltas add up to what the
store holds."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path
from typing import Any

import httpx
import orjson
from store_e2e_server import turnwire_process

TEXT = "tell me everything about the three little pigs"


def _watch(url: str, session: str, connected: threading.Event, frames: list[dict[str, Any]]) -> None:
    with httpx.stream("GET", f"{url}/tasks/{session}/stream", timeout=30) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if line.startswith("data: "):
                frames.append(orjson.loads(line[6:]))
                connected.set()
                last = frames[-1]
                if last["type"] == "done" and last["parent_task_message"]["content"]["type"] == "text":
                    return  # the demo's answer is its last message


def test_a_turn_on_one_worker_streams_on_the_others_task_stream(redis_url: str, tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    session = f"redis-{uuid.uuid4().hex[:8]}"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        turnwire_process(db, tmp_path / "a", "--redis", redis_url) as (url_a, _),
        turnwire_process(db, tmp_path / "b", env={"TURNWIRE_REDIS_URL": redis_url}) as (url_b, _),
    ):
        body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": "hi"}]}}}
        first = httpx.post(f"{url_a}/invoke", json=body, timeout=30)
        assert first.status_code == 200
        task_id = first.headers["x-ag-task-id"]

        frames: list[dict[str, Any]] = []
        connected = threading.Event()
        watcher = threading.Thread(target=_watch, args=(url_b, session, connected, frames))
        watcher.start()
        assert connected.wait(10)
        body["data"]["inputs"]["messages"] = [{"role": "user", "content": TEXT}]  # type: ignore[index]
        turn = httpx.post(
            f"{url_a}/invoke",
            json=body,
            headers={"accept": "text/event-stream", "x-ag-history": "stored"},
            timeout=30,
        )
        assert turn.status_code == 200
        watcher.join(15)
        assert not watcher.is_alive()
        stored = httpx.get(f"{url_b}/tasks/{task_id}/messages", timeout=10).json()["messages"]

    assert frames[0] == {"type": "connected", "taskId": task_id}
    updates = frames[1:]
    assert {"start", "delta", "done"} <= {f["type"] for f in updates}
    by_id = {m["id"]: m for m in stored}
    texts: dict[str, str] = {}
    for f in updates:
        parent = f["parent_task_message"]
        assert parent["id"] in by_id and parent["task_id"] == task_id
        if f["type"] == "delta" and f["delta"]["type"] == "text":
            texts[parent["id"]] = texts.get(parent["id"], "") + f["delta"]["text_delta"]
    assert f"You said: {TEXT}" in texts.values()
    for mid, said in texts.items():
        assert by_id[mid]["content"]["content"] == said and by_id[mid]["streaming_status"] == "DONE"
