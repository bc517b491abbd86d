"""``GET /conversations`` (one page of a tenant's conversations with title, agent and last
activity), ``PATCH`` and ``DELETE /conversations/{id}``, on a real server with SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app


def _chat(server: str, chat_id: str, *texts: str) -> None:
    """A /chat conversation: each text a user turn, sent with the whole history so far."""
    history: list[dict[str, Any]] = []
    for i, text in enumerate(texts):
        history.append({"id": f"{chat_id}-u{i}", "role": "user", "parts": [{"type": "text", "text": text}]})
        r = httpx.post(f"{server}/chat", json={"id": chat_id, "messages": history}, timeout=20)
        assert r.status_code == 200, r.text
        history.append(
            {
                "id": f"{chat_id}-a{i}",
                "role": "assistant",
                "parts": [{"type": "text", "text": f"You said: {text}"}],
            }
        )


def _list(server: str, **params: Any) -> httpx.Response:
    return httpx.get(f"{server}/conversations", params=params, timeout=10)


def test_conversations_come_newest_activity_first_with_title_agent_and_activity(server: str) -> None:
    _chat(server, "c-old", "first question\nsecond line")
    _chat(server, "c-mid", "middle one")
    _chat(server, "c-new", "newest one")
    # Talking again in the oldest makes it the most recent.
    _chat(server, "c-old", "first question\nsecond line", "and again")
    body = _list(server).json()
    names = [c["name"] for c in body["conversations"]]
    assert names == ["c-old", "c-new", "c-mid"]
    assert body["next_cursor"] is None
    old = body["conversations"][0]
    assert old["title"] == "first question"  # the first line of the first user message
    assert old["agent"] == "demo"  # the agent that served its first turn
    assert old["last_activity_at"] > old["created_at"]
    task = httpx.get(f"{server}/tasks/name/c-old", timeout=10).json()
    assert old["id"] == task["id"]
    assert set(old) == {"id", "name", "title", "agent", "created_at", "last_activity_at"}


def test_pages_follow_the_cursor_without_gaps_or_repeats(server: str) -> None:
    for i in range(5):
        _chat(server, f"p-{i}", f"page question {i}")
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        params = {"limit": 2, **({"cursor": cursor} if cursor else {})}
        body = _list(server, **params).json()
        assert len(body["conversations"]) <= 2
        seen += [c["name"] for c in body["conversations"]]
        pages += 1
        cursor = body["next_cursor"]
        if cursor is None:
            break
    assert seen == [f"p-{i}" for i in reversed(range(5))]
    assert pages == 3


def test_search_rename_and_delete(server: str) -> None:
    _chat(server, "s-cats", "Tell me about cats")
    _chat(server, "s-dogs", "Tell me about dogs")
    found = _list(server, q="CATS").json()["conversations"]
    assert [c["name"] for c in found] == ["s-cats"]
    renamed = httpx.patch(
        f"{server}/conversations/s-dogs", json={"title": "  Canines  ", "agent": "demo"}, timeout=10
    )
    assert renamed.status_code == 200, renamed.text
    assert renamed.json()["title"] == "Canines" and renamed.json()["agent"] == "demo"
    assert [c["name"] for c in _list(server, q="canine").json()["conversations"]] == ["s-dogs"]
    # A search for a LIKE wildcard matches it literally.
    assert _list(server, q="%").json()["conversations"] == []
    # An empty title goes back to the first message's.
    cleared = httpx.patch(f"{server}/conversations/s-dogs", json={"title": ""}, timeout=10).json()
    assert cleared["title"] == "Tell me about dogs" and cleared["agent"] == "demo"
    gone = httpx.delete(f"{server}/conversations/s-cats", timeout=10)
    assert gone.status_code == 200 and gone.json()["deleted"] is True
    assert "s-cats" not in [c["name"] for c in _list(server).json()["conversations"]]
    assert httpx.delete(f"{server}/conversations/s-cats", timeout=10).status_code == 404
    assert httpx.patch(f"{server}/conversations/nobody", json={"title": "x"}, timeout=10).status_code == 404


@pytest.mark.parametrize(
    ("params", "loc"),
    [
        ({"limit": 0}, ["query", "limit"]),
        ({"limit": 101}, ["query", "limit"]),
        ({"limit": "many"}, ["query", "limit"]),
        ({"cursor": "not-a-cursor"}, ["query", "cursor"]),
        ({"q": "x" * 201}, ["query", "q"]),
    ],
)
def test_bad_list_parameters_are_400s_naming_them(
    server: str, params: dict[str, Any], loc: list[str]
) -> None:
    r = _list(server, **params)
    assert r.status_code == 400, r.text
    assert r.json()["data"][0]["loc"] == loc


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"title": 5}, ["body", "title"]),
        ({"title": "x" * 201}, ["body", "title"]),
        ({"agent": ["demo"]}, ["body", "agent"]),
        ({"colour": "red"}, ["body", "colour"]),
        ({}, ["body", "title"]),
    ],
)
def test_bad_labels_are_4xx_naming_the_field(server: str, body: dict[str, Any], loc: list[str]) -> None:
    _chat(server, "bad-labels", "hello")
    r = httpx.patch(f"{server}/conversations/bad-labels", json=body, timeout=10)
    assert 400 <= r.status_code < 500, r.text
    assert r.json()["data"][0]["loc"] == loc


@pytest.fixture
def two_agents(db_url: str, tmp_path: Path) -> Iterator[str]:
    """A server with the demo agent twice: ``demo`` (the default) and ``other``."""
    settings = Settings(db_url=db_url, approval_secret_file=str(tmp_path / "secret"), keepalive_seconds=0)
    app = create_app({"demo": demo_agent, "other": demo_agent}, default_agent="demo", settings=settings)
    with serve_app(app) as url:
        yield url


def _post(url: str, body: dict[str, Any], **headers: str) -> httpx.Response:
    r = httpx.post(url, json=body, headers=headers, timeout=20)
    assert r.status_code == 200, (url, r.text)
    return r


def test_every_door_records_the_agent_that_serves_a_conversation(two_agents: str) -> None:
    url = two_agents
    user = [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hello"}]}]
    _post(
        f"{url}/invoke",
        {"session_id": "d-invoke", "data": {"inputs": {"messages": [{"role": "user", "content": "hi"}]}}},
    )
    _post(f"{url}/agents/other/chat", {"id": "d-chat", "messages": user})
    _post(
        f"{url}/agents/other/agui",
        {"threadId": "d-agui", "runId": "r1", "messages": [{"id": "u1", "role": "user", "content": "hi"}]},
    )
    _post(
        f"{url}/v1/chat/completions",
        {"model": "other", "messages": [{"role": "user", "content": "hi"}]},
        **{"x-ag-session-id": "d-openai"},
    )
    response = _post(f"{url}/v1/responses", {"model": "other", "input": "hi", "conversation": "d-responses"})
    assert response.json()["status"] == "completed"
    message = {"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi"}], "contextId": "d-a2a"}
    _post(
        f"{url}/a2a/other",
        {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}},
        **{"a2a-version": "1.0"},
    )
    # Agentex: the task is created first (with the client's own metadata), the agent named by the route.
    rpc = f"{url}/agents/name/other/rpc"
    created = {"method": "task/create", "params": {"name": "d-agentex", "task_metadata": {"team": "blue"}}}
    task = _post(rpc, created).json()["result"]
    content = {"type": "text", "author": "user", "content": "hi"}
    sent = _post(rpc, {"method": "message/send", "params": {"task_id": task["id"], "content": content}})
    assert sent.json()["error"] is None, sent.text

    agents = {c["name"]: c["agent"] for c in _list(url, limit=50).json()["conversations"]}
    assert agents["d-invoke"] == "demo"
    for name in ("d-chat", "d-agui", "d-openai", "d-agentex", "d-a2a"):
        assert agents[name] == "other", (name, agents)
    # The Responses door keeps its conversation under its own id; whatever it is named, it says "other".
    assert [a for n, a in agents.items() if "responses" in n or n.startswith("conv")] == ["other"], agents
    # The labels are the list's: a wire's view of the metadata is the client's own, as it set it.
    seen = httpx.get(f"{url}/tasks/{task['id']}", timeout=10).json()
    assert seen["task_metadata"] == {"team": "blue"}
    # A search matches titles and messages, not the agent's name in the labels.
    assert _list(url, q="other").json()["conversations"] == []
