"""Under ``reject``, the grace a second turn gets (``ENDING_GRACE``: the first may have sent its end
and be storing it) is only for a first turn that did send its end. One still running in this
process is busy now: the second is a 409 at once, not after the grace (here made 30 s, so a
request that waited for it would time out)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from services import serve_app
from turnwire.model import Done, Event, MessageEvent, StopReason
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app
from turnwire.server.turns import multitask

RELEASE = threading.Event()


async def held(ctx: TurnContext) -> AsyncIterator[Event]:
    yield MessageEvent("started")
    while not RELEASE.is_set():
        await asyncio.sleep(0.02)
    yield MessageEvent("released")
    yield Done(stop_reason=StopReason.END_TURN)


@pytest.fixture
def url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    monkeypatch.setattr(multitask, "ENDING_GRACE", 30.0)
    RELEASE.clear()
    settings = Settings(db_url=f"sqlite:///{tmp_path / 's.db'}", keepalive_seconds=0)
    with serve_app(create_app({"held": held}, default_agent="held", settings=settings)) as base:
        yield base
    RELEASE.set()


def chat(text: str) -> dict[str, object]:
    message = {"id": text, "role": "user", "parts": [{"type": "text", "text": text}]}
    return {"id": "busy", "messages": [message]}


def test_a_second_turn_beside_a_running_one_is_refused_at_once(url: str) -> None:
    with httpx.stream("POST", f"{url}/chat", json=chat("first"), timeout=30) as first:
        assert first.status_code == 200
        lines = first.iter_lines()
        assert any('"started"' in line for line in lines)  # the first turn runs, and has not ended
        second = httpx.post(f"{url}/chat", json=chat("second"), timeout=5)
        assert second.status_code == 409, second.text
        RELEASE.set()
        assert any('"released"' in line for line in lines)


def test_a_client_that_closes_its_stream_and_asks_again_at_once_is_answered(url: str) -> None:
    """An Agenta turn ends with its client, but the client's close may reach the turn after its
    next request does: that request waits for the departure (``CLIENT_LEFT_GRACE``) instead of
    being refused. Each round closes a running turn and at once starts the next."""
    sse = {"accept": "text/event-stream"}
    history: list[dict[str, str]] = []
    with httpx.Client(base_url=url, timeout=10) as client:
        for round in range(8):
            history.append({"role": "user", "content": f"round {round}"})
            body = {"session_id": "gone", "data": {"inputs": {"messages": history}}}
            with client.stream("POST", "/invoke", json=body, headers=sse) as turn:
                assert turn.status_code == 200, turn.read()
                assert any('"started"' in line for line in turn.iter_lines())
            history.append({"role": "assistant", "content": "started"})
        stored = client.get("/tasks/gone/messages", params={"format": "agenta"}).json()["messages"]
    assert [(m["role"], m["content"]) for m in stored] == [(m["role"], m["content"]) for m in history]
