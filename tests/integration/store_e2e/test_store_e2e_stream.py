"""``GET /tasks/{id}/stream`` watched while a turn runs through ``/chat``: the deltas it relays
concatenate to the content the store ends up with."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

from services import serve_app
from turnwire.server import Settings, create_app


def _ui(text: str) -> dict[str, Any]:
    return {"id": uuid.uuid4().hex, "role": "user", "parts": [{"type": "text", "text": text}]}


@pytest.mark.anyio
async def test_task_stream_relays_a_chat_turn_whose_deltas_match_the_store(tmp_path: Path) -> None:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 's.db'}", approval_secret_file=str(tmp_path / "k"), keepalive_seconds=0
    )
    session = f"watch-{uuid.uuid4().hex[:8]}"
    with serve_app(create_app(settings=settings)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            first = await client.post("/chat", json={"id": session, "messages": [_ui("hi")]})
            assert first.status_code == 200
            task_id = first.headers["x-ag-task-id"]
            frames: list[dict[str, Any]] = []
            connected = anyio.Event()

            async def watch() -> None:
                async with client.stream("GET", f"/tasks/{session}/stream") as r:
                    assert r.status_code == 200
                    async for line in r.aiter_lines():
                        if line.startswith("data: "):
                            frames.append(orjson.loads(line[6:]))
                            connected.set()

            text = "tell me everything about the three little pigs"
            async with anyio.create_task_group() as tg:
                tg.start_soon(watch)
                with anyio.fail_after(10):
                    await connected.wait()
                turn = await client.post(
                    "/chat", json={"id": session, "messages": [_ui(text)]}, headers={"x-ag-history": "stored"}
                )
                assert turn.status_code == 200
                stored = (await client.get(f"/tasks/{task_id}/messages")).json()["messages"]
                # The turn's messages: everything after its user message. The watcher may lag
                # behind the turn's own response; wait until it has relayed each one's end.
                last_user = max(i for i, m in enumerate(stored) if m["content"]["author"] == "user")
                answer = {m["id"] for m in stored[last_user + 1 :]}
                assert answer
                with anyio.fail_after(10):
                    while not answer <= {
                        f["parent_task_message"]["id"] for f in frames if f["type"] in ("done", "full")
                    }:
                        await anyio.sleep(0.01)
                tg.cancel_scope.cancel()

    assert frames[0] == {"type": "connected", "taskId": task_id}
    updates = frames[1:]
    assert {f["type"] for f in updates} >= {"start", "delta", "done"}
    by_id = {m["id"]: m for m in stored}
    texts: dict[str, str] = {}
    thoughts: dict[str, str] = {}
    for f in updates:
        parent = f["parent_task_message"]
        assert parent is not None and parent["id"] in by_id and parent["task_id"] == task_id
        if f["type"] == "delta":
            delta = f["delta"]
            if delta["type"] == "text":
                texts[parent["id"]] = texts.get(parent["id"], "") + delta["text_delta"]
            else:
                thoughts[parent["id"]] = thoughts.get(parent["id"], "") + delta["content_delta"]
    assert texts and thoughts
    for mid, said in texts.items():
        assert by_id[mid]["content"]["content"] == said
        assert by_id[mid]["streaming_status"] == "DONE"
    for mid, thought in thoughts.items():
        assert "".join(by_id[mid]["content"]["content"]) == thought
    assert f"You said: {text}" in texts.values()
