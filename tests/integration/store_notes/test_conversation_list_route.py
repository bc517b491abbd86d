"""``GET /conversations`` (one page of a tenant's conversations with title, agent and last
activity), ``PATCH`` and ``DELETE /conversations/{id}``, on a real server with SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import httpx
import pytest


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
    assert old["agent"] is None  # no client said which agent
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
