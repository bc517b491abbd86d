"""A failed turn's text carries one prefix on every wire: ``Agent run failed: <why>``, never a second
``… failed:`` before it (issue 31: the page read "The agent failed: Agent run failed: …")."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pty_terminal import Terminal
from services import serve_app
from turnwire.server import Settings, create_app

TEXT = "Agent run failed: demo failure requested"
DOUBLED = re.compile(r"failed:[^\"]{0,40}failed:", re.I)


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = Path(tmp_path_factory.mktemp("failure-text")) / "f.db"
    with serve_app(create_app(settings=Settings(db_url=str(db)))) as base:
        yield base


def _agenta(text: str) -> dict:
    return {
        "session_id": "fail-agenta",
        "data": {"inputs": {"messages": [{"role": "user", "content": text}]}},
    }


REQUESTS = {
    "agenta sse": ("/invoke", _agenta("fail"), {"accept": "text/event-stream"}),
    "agenta batch": ("/invoke", _agenta("fail"), {}),
    "vercel": (
        "/chat",
        {
            "id": "fail-vercel",
            "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "fail"}]}],
        },
        {},
    ),
    "openai": (
        "/v1/chat/completions",
        {"model": "demo", "messages": [{"role": "user", "content": "fail"}]},
        {},
    ),
    "openai stream": (
        "/v1/chat/completions",
        {"model": "demo", "stream": True, "messages": [{"role": "user", "content": "fail"}]},
        {},
    ),
    "agui": (
        "/agui",
        {
            "threadId": "fail-agui",
            "runId": "r1",
            "messages": [{"id": "m1", "role": "user", "content": "fail"}],
        },
        {"accept": "text/event-stream"},
    ),
    "responses": ("/v1/responses", {"model": "demo", "input": "fail"}, {}),
    "a2a": (
        "/a2a",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "messageId": "m1",
                    "role": "user",
                    "parts": [{"kind": "text", "text": "fail"}],
                }
            },
        },
        {},
    ),
}


@pytest.mark.parametrize("wire", list(REQUESTS))
def test_a_failed_turn_says_so_once(url: str, wire: str) -> None:
    path, body, headers = REQUESTS[wire]
    text = httpx.post(url + path, json=body, headers=headers, timeout=30).text
    assert TEXT in text, text
    assert not DOUBLED.search(text), text


def test_the_stored_failure_says_so_once(url: str) -> None:
    path, body, headers = REQUESTS["vercel"]
    httpx.post(url + path, json=body, headers=headers, timeout=30)
    for fmt in ("vercel", "agenta", "agentex"):
        stored = httpx.get(f"{url}/tasks/fail-vercel/messages", params={"format": fmt}, timeout=10).text
        assert not DOUBLED.search(stored), stored


def test_the_terminal_shows_a_failure_with_one_prefix(url: str) -> None:
    term = Terminal("chat", url, "--session", "fail-tty")
    try:
        term.expect("you> ")
        term.send("fail\r")
        shown = term.expect(TEXT)
        term.expect("you> ")
        assert "error: Agent run failed" not in shown + term.screen, term.screen
        term.send("\x04")
        assert term.wait() == 0
    finally:
        term.kill()
