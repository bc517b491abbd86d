"""``GET /tasks/{id}/messages?format=`` over real HTTP and a real store: a task's stored
conversation in each wire format, by id or by name, and its errors."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from agentex_server import Server

PAUSED = [
    {"type": "text", "author": "user", "content": "delete a.txt"},
    {"type": "text", "author": "agent", "content": "I will delete a.txt."},
    {
        "type": "tool_request",
        "author": "agent",
        "tool_call_id": "c1",
        "name": "delete_file",
        "arguments": {"path": "a.txt"},
    },
    {
        "type": "data",
        "author": "agent",
        "data": {
            "type": "interaction_request",
            "id": "tok-1",
            "kind": "user_approval",
            "payload": {"toolCallId": "c1", "toolName": "delete_file"},
        },
    },
]


@pytest.fixture
def http(server: Server) -> Iterator[httpx.Client]:
    with server.http() as client:
        yield client


@pytest.fixture
def task(http: httpx.Client) -> dict:
    name = uuid.uuid4().hex
    r = http.post("/agents/name/echo/rpc", json={"method": "task/create", "params": {"name": name}})
    task = r.json()["result"]
    r = http.post("/messages/batch", json={"task_id": task["id"], "contents": PAUSED})
    assert r.status_code == 200
    return task


def test_the_default_format_is_the_stored_task_messages(http: httpx.Client, task: dict) -> None:
    body = http.get(f"/tasks/{task['id']}/messages").json()
    assert (body["task_id"], body["format"]) == (task["id"], "agentex")
    assert [m["content"]["type"] for m in body["messages"]] == ["text", "text", "tool_request", "data"]
    assert body["messages"][0]["content"] == {
        "type": "text",
        "author": "user",
        "style": "static",
        "format": "plain",
        "content": "delete a.txt",
        "attachments": None,
    }


def test_vercel_shows_the_pending_call_approval_requested_with_its_approval_id(
    http: httpx.Client, task: dict
) -> None:
    body = http.get(f"/tasks/{task['id']}/messages", params={"format": "vercel"}).json()
    user, answer = body["messages"]
    assert user["parts"] == [{"type": "text", "text": "delete a.txt"}]
    assert answer["role"] == "assistant"
    assert answer["parts"] == [
        {"type": "text", "text": "I will delete a.txt."},
        {
            "type": "tool-delete_file",
            "toolCallId": "c1",
            "state": "approval-requested",
            "input": {"path": "a.txt"},
            "approval": {"id": "tok-1"},
        },
    ]


def test_agenta_by_task_name_joins_the_answer(http: httpx.Client, task: dict) -> None:
    for path in (f"/tasks/name/{task['name']}/messages", f"/tasks/{task['name']}/messages"):
        body = http.get(path, params={"format": " Agenta "}).json()  # trimmed, any case
        assert body["task_id"] == task["id"]
        user, answer = body["messages"]
        assert (user["role"], user["content"]) == ("user", "delete a.txt")
        assert answer["role"] == "assistant"
        assert answer["content"] == [
            {"type": "text", "text": "I will delete a.txt."},
            {"type": "tool_call", "toolCallId": "c1", "toolName": "delete_file", "input": {"path": "a.txt"}},
        ]


def test_an_unknown_format_is_400_naming_the_query_field(http: httpx.Client, task: dict) -> None:
    r = http.get(f"/tasks/{task['id']}/messages", params={"format": "bogus"})
    assert r.status_code == 400
    body = r.json()
    assert body["code"] == 400
    assert body["data"][0]["loc"] == ["query", "format"]
    assert all(name in body["message"] for name in ("agenta", "agentex", "vercel"))


def test_an_unknown_task_is_404(http: httpx.Client) -> None:
    r = http.get(f"/tasks/{uuid.uuid4().hex}/messages", params={"format": "vercel"})
    assert r.status_code == 404
    assert r.json()["code"] == 404


@pytest.mark.parametrize("field", ["author", "style", "format"])
def test_a_list_where_a_content_choice_belongs_is_422_not_500(
    http: httpx.Client, task: dict, field: str
) -> None:
    content = {"type": "text", "author": "user", "content": "x"} | {field: ["user"]}
    r = http.post("/messages", json={"task_id": task["id"], "content": content})
    assert r.status_code == 422
    assert r.json()["data"][0]["loc"] == ["body", "content", field]
