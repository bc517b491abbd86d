"""The same turn through ``POST /invoke`` and through the Agentex ``message/send`` RPC is stored and
published identically: the same frames on ``/tasks/{id}/stream``, the same conversation read back as
UIMessages. Streamed and batch alike, on a real server and SQLite store."""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import orjson
import pytest

from services import serve_app
from turnwire.server import Settings, create_app

TEXT = "tell me everything about the three little pigs"
VOLATILE = {"id", "task_id", "created_at", "updated_at", "traceId", "sessionId"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'doors.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        keepalive_seconds=0,
    )
    with serve_app(create_app(settings=settings)) as url:
        yield url


def _stable(value: Any, ids: dict[str, str]) -> Any:
    """``value`` with store ids, task ids and timestamps replaced by their order of appearance, so
    two tasks' records compare by shape and content only."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in VOLATILE and isinstance(v, str):
                out[k] = ids.setdefault(v, f"<{len(ids)}>")
            else:
                out[k] = _stable(v, ids)
        return out
    if isinstance(value, list):
        return [_stable(v, ids) for v in value]
    if isinstance(value, str) and value in ids:
        return ids[value]
    return value


async def _watched(
    client: httpx.AsyncClient, task_name: str, turn: Callable[[], Awaitable[None]]
) -> list[dict[str, Any]]:
    """The frames ``/tasks/name/{task_name}/stream`` relays while ``turn`` runs (after ``connected``)."""
    frames: list[dict[str, Any]] = []
    connected = anyio.Event()

    async def watch() -> None:
        async with client.stream("GET", f"/tasks/name/{task_name}/stream") as r:
            assert r.status_code == 200
            async for line in r.aiter_lines():
                if line.startswith("data: "):
                    frames.append(orjson.loads(line[6:]))
                    connected.set()

    async with anyio.create_task_group() as tg:
        tg.start_soon(watch)
        with anyio.fail_after(10):
            await connected.wait()
        await turn()
        with anyio.fail_after(10):
            # Every stored output message has been announced as finished ('done' or 'full').
            while (
                sum(f["type"] in ("done", "full") for f in frames)
                < sum(f["type"] in ("start", "full") for f in frames)
                or len(frames) < 2
            ):
                await anyio.sleep(0.01)
        await anyio.sleep(0.1)  # nothing further may arrive
        tg.cancel_scope.cancel()
    assert frames[0]["type"] == "connected"
    return frames[1:]


async def _new_task(client: httpx.AsyncClient, name: str) -> str:
    r = await client.post("/agents/name/demo/rpc", json={"method": "task/create", "params": {"name": name}})
    return r.json()["result"]["id"]


async def _through_both(url: str, *, stream: bool) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    inv, rpc = f"inv-{uuid.uuid4().hex[:8]}", f"rpc-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        inv_id, rpc_id = await _new_task(client, inv), await _new_task(client, rpc)

        async def invoke() -> None:
            body = {"session_id": inv, "data": {"inputs": {"messages": [{"role": "user", "content": TEXT}]}}}
            accept = "text/event-stream" if stream else "application/json"
            r = await client.post("/invoke", json=body, headers={"accept": accept})
            assert r.status_code == 200 and r.headers["x-ag-task-id"] == inv_id

        async def send() -> None:
            content = {"type": "text", "author": "user", "content": TEXT}
            params = {"task_id": rpc_id, "content": content, "stream": stream}
            r = await client.post("/agents/name/demo/rpc", json={"method": "message/send", "params": params})
            assert r.status_code == 200
            if stream:
                lines = [orjson.loads(line) for line in r.text.splitlines()]
                assert lines and all(line["error"] is None for line in lines)
            else:
                assert r.json()["error"] is None and r.json()["result"]

        inv_frames = await _watched(client, inv, invoke)
        rpc_frames = await _watched(client, rpc, send)
        views = []
        for task_id in (inv_id, rpc_id):
            r = await client.get(f"/tasks/{task_id}/messages", params={"format": "vercel"})
            assert r.status_code == 200
            views.append(r.json()["messages"])
    return inv_frames, rpc_frames, views[0], views[1]


@pytest.mark.anyio
async def test_a_streamed_message_send_is_published_and_stored_like_a_streamed_invoke(server: str) -> None:
    inv_frames, rpc_frames, inv_view, rpc_view = await _through_both(server, stream=True)
    kinds = [f["type"] for f in inv_frames]
    assert {"start", "delta", "done"} <= set(kinds)
    assert all(f["parent_task_message"] is not None for f in inv_frames)
    assert _stable(rpc_frames, {}) == _stable(inv_frames, {})
    assert rpc_view[-1]["role"] == "assistant" and len(rpc_view) == 2
    assert _stable(rpc_view, {}) == _stable(inv_view, {})


@pytest.mark.anyio
async def test_a_batch_message_send_is_published_and_stored_like_a_batch_invoke(server: str) -> None:
    inv_frames, rpc_frames, inv_view, rpc_view = await _through_both(server, stream=False)
    # A batch turn is stored at its end in one transaction: its watchers get one 'full' frame per
    # stored message, each with its DONE parent.
    assert inv_frames and all(f["type"] == "full" for f in inv_frames)
    assert all(f["parent_task_message"]["streaming_status"] == "DONE" for f in inv_frames)
    assert [f["index"] for f in inv_frames] == list(range(len(inv_frames)))
    assert _stable(rpc_frames, {}) == _stable(inv_frames, {})
    assert _stable(rpc_view, {}) == _stable(inv_view, {})
    said = [p["text"] for p in inv_view[-1]["parts"] if p["type"] == "text"]
    assert said == [f"You said: {TEXT}"]
