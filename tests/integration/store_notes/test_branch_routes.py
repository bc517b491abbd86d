"""``GET /tasks/{id}/branches`` and ``GET /tasks/{id}/messages?branch=``, on a real server with
SQLite and PostgreSQL: a /chat session edited and regenerated reads back branch by branch."""

from __future__ import annotations

from typing import Any

import httpx
from door_turns import chat_rewind


def _said(messages: list[dict[str, Any]]) -> list[str]:
    """The texts of Vercel UIMessages."""
    return [p["text"] for m in messages for p in m["parts"] if p["type"] == "text"]


def _read(server: str, session: str, **params: str) -> httpx.Response:
    return httpx.get(f"{server}/tasks/{session}/messages", params={"format": "vercel", **params}, timeout=10)


def test_each_branch_of_an_edited_and_regenerated_chat_reads_back(server: str) -> None:
    session = chat_rewind(server, "branchy")
    r = httpx.get(f"{server}/tasks/{session}/branches", timeout=10)
    assert r.status_code == 200
    body = r.json()
    task = httpx.get(f"{server}/tasks/name/{session}", timeout=10).json()
    assert body["task_id"] == task["id"]
    first, edited, regenerated = body["branches"]
    assert [b["latest"] for b in body["branches"]] == [False, False, True]
    assert first["created_at"] < edited["created_at"] < regenerated["created_at"]
    assert _said(_read(server, session, branch=first["leaf_id"]).json()["messages"]) == [
        "hello one",
        "You said: hello one",
        "hello two",
        "You said: hello two",
    ]
    edited_said = ["hello one", "You said: hello one", "hello edited", "You said: hello edited"]
    assert _said(_read(server, session, branch=edited["leaf_id"]).json()["messages"]) == edited_said
    # The default read is the latest branch, the regenerated answer: the same text, another message.
    latest = _read(server, session).json()
    assert latest == _read(server, session, branch=regenerated["leaf_id"]).json()
    assert _said(latest["messages"]) == edited_said
    assert (
        latest["messages"][-1]["id"]
        != _read(server, session, branch=edited["leaf_id"]).json()["messages"][-1]["id"]
    )
    # Where they fork: the edit after the first answer, the regenerate after the edited question.
    agentex = httpx.get(
        f"{server}/tasks/{session}/messages", params={"branch": edited["leaf_id"]}, timeout=10
    )
    ids = {
        m["content"].get("content"): m["id"]
        for m in agentex.json()["messages"]
        if m["content"]["type"] == "text"
    }
    assert first["fork_id"] == ids["You said: hello one"]
    assert edited["fork_id"] == regenerated["fork_id"] == ids["hello edited"]


def test_an_unknown_branch_is_a_400_naming_it_and_an_unknown_task_a_404(server: str) -> None:
    session = chat_rewind(server, "lost")
    r = _read(server, session, branch="no-such-message")
    assert r.status_code == 400 and r.json()["data"][0]["loc"] == ["query", "branch"]
    assert httpx.get(f"{server}/tasks/nobody/branches", timeout=10).status_code == 404
