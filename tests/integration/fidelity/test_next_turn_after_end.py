"""A client may send its next message the moment it reads a turn's error or finish chunk (the AI
SDK's chat throws at ``error`` and reads no further). The next turn must see the previous one
stored, even though the recorder writes beside the stream and the agent is still winding down:
otherwise the stored history lacks the turn the client holds, and the client's history is
stored a second time after it."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from fidelity_wire import stored, user
from ui_assembly import assemble

from services import serve_app
from turnwire.model import Done, ErrorEvent, Event, MessageEvent
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

LINGER = 1.0  # how long the agent keeps running after its last chunk


async def fails_then_lingers(ctx: TurnContext) -> AsyncIterator[Event]:
    text = ctx.last_user_text()
    yield MessageEvent(text=f"Starting {text}")
    if text.startswith("fail"):
        yield ErrorEvent(message="it broke", code="broken")
    else:
        yield Done(stop_reason="end_turn")
    await asyncio.sleep(LINGER)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("next-turn")
    app = create_app(
        {"lingers": fails_then_lingers},
        default_agent="lingers",
        # A long flush interval: nothing is written while the turn streams, only at its end.
        settings=Settings(db_url=f"sqlite:///{home / 'next.db'}", keepalive_seconds=0, flush_seconds=30),
    )
    with serve_app(app) as url:
        yield url


def _until(url: str, body: dict[str, Any], last: str) -> tuple[httpx.Client, httpx.Response, list[Any]]:
    """Open a /chat stream and read it up to the first chunk of type ``last``; the stream stays
    open (the caller closes it), as a client that moved on without reading the rest."""
    client = httpx.Client(timeout=30)
    response = client.send(client.build_request("POST", f"{url}/chat", json=body), stream=True)
    assert response.status_code == 200
    chunks: list[dict[str, Any]] = []
    for line in response.iter_lines():
        if line.startswith("data: {"):
            chunks.append(orjson.loads(line[6:]))
            if chunks[-1]["type"] == last:
                break
    return client, response, chunks


@pytest.mark.parametrize("first", ["fail now", "hello"])
def test_the_next_turn_sees_the_turn_the_client_just_read(server: str, first: str) -> None:
    chat_id = f"next-{uuid.uuid4().hex}"
    held = [user("u1", first)]
    last = "error" if first.startswith("fail") else "finish"
    client, response, chunks = _until(server, {"id": chat_id, "messages": held}, last)
    try:
        held.append(assemble(chunks))
        held.append(user("u2", "and then"))
        with httpx.stream("POST", f"{server}/chat", json={"id": chat_id, "messages": held}, timeout=30) as r:
            assert r.status_code == 200
            second = [orjson.loads(x[6:]) for x in r.iter_lines() if x.startswith("data: {")]
    finally:
        response.close()
        client.close()
    assert second[-1]["type"] == "finish", second
    held.append(assemble(second))
    history = stored(server, chat_id, "vercel")
    assert [m["id"] for m in history] == [m["id"] for m in held]
    canonical = orjson.OPT_SORT_KEYS
    assert orjson.dumps(history, option=canonical) == orjson.dumps(held, option=canonical)
