"""What a reconnecting Agentex client gets from ``GET /tasks/{id}/stream``, on the real
``agentex-client``: the task stream carries no event ids and replays nothing (docs/sessions.md says
why); a client that drops mid-turn subscribes again, lists the task's messages, and takes each
message's final form from its ``done`` frame — the whole message, exactly as stored.

Also a tripwire for the reason: the client's SSE decoder turns the protocol's ``:ping`` keepalive
into an event with empty data once an event carried an id, and ``stream_events`` then raises.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from agentex import Agentex
from agentex.types import TaskMessage
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app

COUNT = 60  # the demo agent's numbers, 50 ms apart: one message each, a 3 s turn


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("reconnect")
    settings = Settings(db_url=f"sqlite:///{home / 's.db'}", approval_secret_file=str(home / "k"))
    with serve_app(create_app({"demo": demo_agent}, settings=settings)) as base:
        yield base


def _dump(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else value.model_dump(mode="json")


def test_a_reconnecting_agentex_client_ends_with_every_message_exactly_as_stored(url: str) -> None:
    client = Agentex(base_url=url, max_retries=0)
    chat_id = f"reconnect-{uuid.uuid4().hex[:8]}"
    # A /chat turn outlives its connection: start it and hang up after the first chunk.
    user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": f"count to {COUNT}"}]}
    with httpx.stream("POST", f"{url}/chat", json={"id": chat_id, "messages": [user]}, timeout=30) as r:
        assert r.status_code == 200
        task_id = r.headers["x-ag-task-id"]
        next(r.iter_lines())

    # A viewer reads a few updates, then its connection drops.
    first = client.tasks.stream_events(task_id)
    seen: list[dict[str, Any]] = []
    for frame in first:
        seen.append(_dump(frame))
        if sum(f["type"] == "done" for f in seen) >= 5:
            break
    first.close()
    assert seen[0] == {"type": "connected", "taskId": task_id}

    # It comes back: subscribe (``connected`` means subscribed), then list what is stored.
    again = iter(client.tasks.stream_events(task_id))
    assert _dump(next(again)) == {"type": "connected", "taskId": task_id}
    listed = {m.id: _dump(m) for m in client.messages.list(task_id=task_id, limit=1000)}
    finals: dict[str, dict[str, Any]] = {}
    for raw in again:
        frame = _dump(raw)
        assert frame["type"] in ("start", "delta", "done"), frame  # the rest of the running turn
        parent = frame["parent_task_message"]
        assert parent["task_id"] == task_id
        if frame["type"] == "done":
            finals[parent["id"]] = parent
            if parent["content"]["content"] == str(COUNT):
                break
    # Never a replay: nothing the first viewer saw finished comes again.
    before = {f["parent_task_message"]["id"] for f in seen[1:] if f["type"] == "done"}
    assert before.isdisjoint(finals)

    # A ``done`` frame goes out as the message ends; the store takes it on its next write (the
    # write interval), so the listing may trail the frame by that much.
    stored = _stored_once_written(client, task_id, finals)
    # Each ``done`` frame's message is the stored message, exactly (content, status, stamps).
    for mid, final in finals.items():
        assert _dump(TaskMessage.model_validate(final)) == stored[mid]
        assert final["streaming_status"] == "DONE"
    # What the first listing held of a message still streaming is the start of its final form.
    for mid, message in listed.items():
        if mid in finals:
            assert final_text(finals[mid]).startswith(final_text(message))
    # The listing taken after the turn holds every message once: the client's view is complete.
    said = [m["content"]["content"] for m in sorted(stored.values(), key=lambda m: m["created_at"])]
    assert said == [f"count to {COUNT}", *(str(n) for n in range(1, COUNT + 1))]


def _stored_once_written(client: Agentex, task_id: str, wanted: dict[str, Any]) -> dict[str, Any]:
    deadline = time.monotonic() + 10
    while True:
        stored = {m.id: _dump(m) for m in client.messages.list(task_id=task_id, limit=1000)}
        done = all(stored.get(mid, {}).get("streaming_status") == "DONE" for mid in wanted)
        if done or time.monotonic() > deadline:
            return stored
        time.sleep(0.05)


def final_text(message: dict[str, Any]) -> str:
    return str(message["content"].get("content") or "")


# ------------------------------------------------------------------ why there are no ids

_WITH_ID = (
    b'data: {"type":"connected","taskId":"t1"}\n\n'
    b'id: turn-1:1\ndata: {"type":"done","index":0,"parent_task_message":null}\n\n'
    b":ping\n\n"
    b'data: {"type":"done","index":1,"parent_task_message":null}\n\n'
)


def _serve_bytes(body: bytes) -> Any:
    async def stream(request: Request) -> Response:
        return Response(body, media_type="text/event-stream")

    return serve_app(Starlette(routes=[Route("/tasks/{task_id}/stream", stream)]))


def test_agentex_client_breaks_on_the_protocol_ping_after_an_event_id() -> None:
    with _serve_bytes(_WITH_ID) as base:
        events = Agentex(base_url=base, max_retries=0).tasks.stream_events("t1")
        got: list[Any] = []
        with pytest.raises(ValueError):  # json.JSONDecodeError: the ping became an empty event
            for event in events:
                got.append(event)
    assert len(got) == 2  # connected, the event with the id; then the ping raised
    # and the id never reaches the caller: ``stream_events`` yields only each event's data
    assert all("id" not in _dump(e) for e in got)


def test_without_ids_the_same_bytes_read_fine() -> None:
    with _serve_bytes(_WITH_ID.replace(b"id: turn-1:1\n", b"")) as base:
        events = list(Agentex(base_url=base, max_retries=0).tasks.stream_events("t1"))
    assert [_dump(e)["type"] for e in events] == ["connected", "done", "done"]
