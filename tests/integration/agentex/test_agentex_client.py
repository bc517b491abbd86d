"""The official agentex-client 0.28.4, unchanged, against our server on SQLite and PostgreSQL."""

from __future__ import annotations

import itertools
import json
import uuid
from datetime import UTC, datetime

import pytest
from agentex import Agentex, NotFoundError
from agentex_server import Server

CONTENTS = [
    {
        "type": "text",
        "author": "user",
        "content": "hello",
        "format": "markdown",
        "attachments": [{"file_id": "f1", "name": "a.txt", "size": 3, "type": "text/plain"}],
    },
    {"type": "reasoning", "author": "agent", "summary": ["s1"], "content": ["c1", "c2"], "style": "active"},
    {"type": "data", "author": "agent", "data": {"type": "chart", "points": [1, 2]}},
    {
        "type": "tool_request",
        "author": "agent",
        "tool_call_id": "call1",
        "name": "search",
        "arguments": {"q": "x"},
    },
    {
        "type": "tool_response",
        "author": "agent",
        "tool_call_id": "call1",
        "name": "search",
        "content": {"hits": 2},
        "is_error": False,
    },
]


def _task(client: Agentex, name: str | None = None) -> str:
    task = client.agents.create_task(agent_name="echo", params={"name": name or f"t-{uuid.uuid4().hex}"})
    assert task.result is not None
    return task.result.id


def _dump(content: object) -> dict:
    return content.model_dump(mode="json")  # type: ignore[attr-defined]


def test_every_content_type_round_trips_through_create_and_retrieve(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    for content in CONTENTS:
        created = client.messages.create(task_id=task_id, content=content)  # type: ignore[arg-type]
        assert len(created.id or "") == 24 and created.streaming_status is None
        got = client.messages.retrieve(created.id or "")
        dumped = _dump(got.content)
        for key, value in content.items():
            assert dumped[key] == value
        assert got.created_at == created.created_at and got.created_at.tzinfo is not None  # type: ignore[union-attr]


def test_batch_create_update_and_list_with_filters(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    created = client.messages.batch.create(task_id=task_id, contents=CONTENTS)  # type: ignore[arg-type]
    assert [m.content.type for m in created] == [c["type"] for c in CONTENTS]
    stamps = [m.created_at for m in created]
    assert all((b - a).total_seconds() * 1000 == 1 for a, b in itertools.pairwise(stamps))  # type: ignore[operator]

    listed = client.messages.list(task_id=task_id)
    assert [m.id for m in listed] == [m.id for m in reversed(created)]  # newest first
    only_data = client.messages.list(task_id=task_id, filters=json.dumps({"content": {"type": "data"}}))
    assert [m.id for m in only_data] == [created[2].id]
    not_tools = client.messages.list(
        task_id=task_id,
        filters=json.dumps(
            [
                {"content": {"type": "tool_request"}, "exclude": True},
                {"content": {"type": "tool_response"}, "exclude": True},
            ]
        ),
        order_direction="asc",
    )
    assert [m.id for m in not_tools] == [m.id for m in created[:3]]

    new_text = {"type": "text", "author": "agent", "content": "replaced"}
    updated = client.messages.batch.update(task_id=task_id, updates={created[3].id: new_text})  # type: ignore[dict-item]
    assert [m.id for m in updated] == [created[3].id]
    assert _dump(client.messages.retrieve(created[3].id or "").content)["content"] == "replaced"


def test_update_changes_type_and_status(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    msg = client.messages.create(task_id=task_id, content=CONTENTS[0], streaming_status="IN_PROGRESS")  # type: ignore[arg-type]
    out = client.messages.update(msg.id or "", task_id=task_id, content=CONTENTS[2], streaming_status="DONE")  # type: ignore[arg-type]
    assert out.content.type == "data" and out.streaming_status == "DONE"
    assert out.created_at == msg.created_at and out.updated_at > msg.updated_at  # type: ignore[operator]


def test_list_paginated_walks_older_then_newer(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    contents = [{"type": "text", "author": "user", "content": str(i)} for i in range(60)]
    client.messages.batch.create(task_id=task_id, contents=contents)  # type: ignore[arg-type]
    seen, cursor, pages = [], None, []
    while True:
        page = client.messages.list_paginated(task_id=task_id, limit=7, cursor=cursor)
        pages.append(page)
        seen += [_dump(m.content)["content"] for m in page.data]
        if not page.has_more:
            assert page.next_cursor is None
            break
        cursor = page.next_cursor
    assert seen == [str(i) for i in range(59, -1, -1)]
    up = client.messages.list_paginated(
        task_id=task_id, limit=3, cursor=pages[2].next_cursor, direction="newer"
    )
    # pages[2] ends at "39"; the three messages directly above it are 42, 41, 40.
    assert [_dump(m.content)["content"] for m in up.data] == ["42", "41", "40"]


def test_tasks_retrieve_list_delete(server: Server) -> None:
    client = server.client()
    name = f"named-{uuid.uuid4().hex}"
    first = client.agents.create_task(
        agent_name="echo", params={"name": name, "params": {"a": 1}, "task_metadata": {"owner": name}}
    )
    agent = client.agents.retrieve_by_name("echo")
    again = client.agents.create_task(
        agent_id=agent.id, params={"name": name, "params": {"b": 2}, "task_metadata": {"owner": "x"}}
    )
    assert first.result and again.result and again.result.id == first.result.id
    # params may hold a caller's secrets: stored (the agent gets them), never sent back.
    assert again.result.params is None and again.result.task_metadata == {"owner": name}
    assert client.tasks.retrieve(first.result.id).name == name
    assert client.tasks.retrieve_by_name(name).id == first.result.id
    listed = client.tasks.list(task_metadata=json.dumps({"owner": name}))
    assert [t.id for t in listed] == [first.result.id]
    client.tasks.delete(first.result.id)
    with pytest.raises(NotFoundError):
        client.tasks.retrieve(first.result.id)
    assert [a.name for a in client.agents.list()] == ["echo", "quiet"]


def test_cancel_task_over_rpc(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    out = client.agents.cancel_task(agent_name="echo", params={"task_id": task_id})
    assert out.result is not None and out.result.status == "CANCELED"
    # The client cannot model an error result for cancel_task, so read the raw RPC answer.
    with server.http() as http:
        again = http.post(
            "/agents/name/echo/rpc", json={"method": "task/cancel", "params": {"task_id": task_id}}
        )
    assert again.status_code == 200
    assert (
        again.json()["error"]["code"] == -32602
        and "cannot be transitioned" in again.json()["error"]["message"]
    )


def test_send_message_runs_the_agent_and_stores_the_turn(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    out = client.agents.send_message(
        agent_name="echo",
        params={"task_id": task_id, "content": {"type": "text", "author": "user", "content": "hi"}},
    )
    assert out.result is not None
    assert [m.content.type for m in out.result] == ["reasoning", "text", "tool_request"]
    assert _dump(out.result[1].content)["content"] == "echo: hi"
    assert all(m.streaming_status == "DONE" for m in out.result)
    stored = client.messages.list(task_id=task_id, order_direction="asc")
    assert [m.content.type for m in stored] == ["text", "reasoning", "text", "tool_request"]


def test_send_message_stream_yields_updates_and_stores_them(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    updates = [
        chunk.result
        for chunk in client.agents.send_message_stream(
            agent_name="echo",
            params={"task_id": task_id, "content": {"type": "text", "author": "user", "content": "yo"}},
        )
    ]
    kinds = [u.type for u in updates if u is not None]
    assert kinds == ["full", "start", "delta", "delta", "done", "full"]
    deltas = "".join(u.delta.text_delta for u in updates if u is not None and u.type == "delta")  # type: ignore[union-attr]
    assert deltas == "echo: yo"
    done = next(u for u in updates if u is not None and u.type == "done")
    assert done.parent_task_message is not None and done.parent_task_message.streaming_status == "DONE"
    stored = client.messages.retrieve(done.parent_task_message.id or "")
    assert _dump(stored.content)["content"] == "echo: yo"


def test_created_at_given_is_kept_and_list_agrees_with_create(server: Server) -> None:
    client = server.client()
    task_id = _task(client)
    when = datetime(2025, 1, 1, 10, 0, 0, 123000, tzinfo=UTC)
    msg = client.messages.create(task_id=task_id, content=CONTENTS[2], created_at=when)  # type: ignore[arg-type]
    assert msg.created_at == when and msg.updated_at == when
    (listed,) = client.messages.list(task_id=task_id)
    assert listed.created_at == msg.created_at
