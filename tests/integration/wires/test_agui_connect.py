"""``GET /agui/threads/{threadId}/connect``: a thread's stored messages as ``MESSAGES_SNAPSHOT``,
then its running run live (event ids ``<turn>:<n>``, resumable after one), on one server and
across two ``turnwire serve`` workers on one PostgreSQL and one Redis."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from services import serve_app, turnwire_process
from turnwire.agents import demo_agent
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

pytestmark = pytest.mark.anyio
E2E_AGENTS = Path(__file__).parent.parent / "store_e2e"
WORDS = 120
FULL = "".join(f"w{i} " for i in range(WORDS))


async def long(ctx: TurnContext) -> AsyncIterator[Event]:
    """As many words as the user's message says, one every 10 ms (``store_e2e_agents.long``)."""
    text = ctx.last_user_text().strip()
    yield MessageStart(id="m1")
    for i in range(int(text) if text.isdigit() else WORDS):
        yield MessageDelta(id="m1", delta=f"w{i} ")
        await asyncio.sleep(0.01)
    yield MessageEnd(id="m1")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("connect")
    settings = Settings(
        db_url=f"sqlite:///{home / 'connect.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
    )
    agents = {"long": long, "demo": demo_agent}
    with serve_app(create_app(agents, default_agent="long", settings=settings)) as url:
        yield url


def run_input(thread: str, text: str) -> dict[str, Any]:
    message = {"id": f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}
    return {"threadId": thread, "runId": uuid.uuid4().hex, "messages": [message]}


async def sse(response: httpx.Response) -> AsyncIterator[tuple[str | None, dict[str, Any]]]:
    """``(id, event)`` of each SSE event (``id`` ``None`` when the event names none)."""
    event_id: str | None = None
    async for line in response.aiter_lines():
        if line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("data: "):
            yield event_id, orjson.loads(line[6:])
            event_id = None


async def connect(http: httpx.AsyncClient, url: str, thread: str, **kw: Any) -> list[tuple[str | None, Any]]:
    async with http.stream("GET", f"{url}/agui/threads/{thread}/connect", **kw) as response:
        assert response.status_code == 200, await response.aread()
        assert response.headers["content-type"].startswith("text/event-stream")
        return [item async for item in sse(response)]


def text_of(events: list[tuple[str | None, Any]]) -> str:
    return "".join(e["delta"] for _, e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


async def started_run(
    http: httpx.AsyncClient, url: str, thread: str, words: int, history: list[Any] | None = None
) -> tuple[Any, Any]:
    """A run of ``long`` that outlives its client, read up to its first text (``history``: the
    thread's messages before the new one, as a client sends them)."""
    body = run_input(thread, str(words))
    body["messages"] = [*(history or []), *body["messages"]]
    headers = {"x-ag-on-disconnect": "continue"}
    cm = http.stream("POST", f"{url}/agents/long/agui", json=body, headers=headers)
    response = await cm.__aenter__()
    assert response.status_code == 200
    stream = sse(response)
    async for _, event in stream:
        if event["type"] == "TEXT_MESSAGE_CONTENT":
            break
    return cm, body


async def test_a_thread_with_no_run_is_its_snapshot_framed_as_a_run(server: str) -> None:
    thread = f"idle-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(timeout=30) as http:
        fresh = await connect(http, server, thread)
        assert [e["type"] for _, e in fresh] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
        assert fresh[1][1]["messages"] == []
        assert all(i is None for i, _ in fresh)
        assert fresh[0][1]["threadId"] == thread == fresh[2][1]["threadId"]

        response = await http.post(f"{server}/agui", json=run_input(thread, "5"))
        assert response.status_code == 200
        events = await connect(http, server, thread)
        stored = (await http.get(f"{server}/tasks/{thread}/messages", params={"format": "agui"})).json()
        snapshot = events[1][1]["messages"]
        assert snapshot == stored["messages"]
        assert [m["role"] for m in snapshot] == ["user", "assistant"]
        assert snapshot[1]["content"] == "w0 w1 w2 w3 w4 "


async def test_a_paused_thread_ends_on_the_interrupts_its_last_run_ended_on(server: str) -> None:
    thread = f"paused-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(timeout=30) as http:
        async with http.stream(
            "POST", f"{server}/agents/demo/agui", json=run_input(thread, "delete important.db")
        ) as response:
            ran = [e async for _, e in sse(response)]
        outcome = ran[-1]["outcome"]
        assert outcome["type"] == "interrupt" and outcome["interrupts"]
        events = await connect(http, server, f"{thread}")
    assert [e["type"] for _, e in events] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
    assert events[2][1]["outcome"] == outcome


async def test_a_running_run_is_followed_after_the_snapshot_and_resumed_after_an_event_id(
    server: str,
) -> None:
    thread = f"live-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(timeout=30) as http:
        first = await http.post(f"{server}/agui", json=run_input(thread, "3"))
        assert first.status_code == 200
        history = (await http.get(f"{server}/tasks/{thread}/messages", params={"format": "agui"})).json()
        cm, body = await started_run(http, server, thread, WORDS, history["messages"])
        try:
            await asyncio.sleep(0.15)  # past the store's first write: it holds part of the reply
            events = await connect(http, server, thread)
        finally:
            await cm.__aexit__(None, None, None)
    types = [e["type"] for _, e in events]
    assert types[:2] == ["RUN_STARTED", "MESSAGES_SNAPSHOT"]
    assert types[-1] == "RUN_FINISHED"
    assert events[0][1]["runId"] == body["runId"]
    turn = events[0][0].rsplit(":", 1)[0]
    # The snapshot: the first run and this run's user message, none of this run's reply.
    snapshot = events[1][1]["messages"]
    assert [m["role"] for m in snapshot] == ["user", "assistant", "user"]
    assert snapshot[-1]["id"] == body["messages"][-1]["id"]
    assert text_of(events) == FULL
    # Every event of the run is numbered, from 1; the snapshot is not.
    ids = [i for i, _ in events]
    assert ids[1] is None
    assert [i for i in ids if i is not None] == [f"{turn}:{n}" for n in range(1, len(events))]

    async with httpx.AsyncClient(timeout=30) as http:
        # The run is over: its id resumes nothing, the snapshot holds its end.
        after = await connect(http, server, thread, headers={"last-event-id": events[5][0]})
        assert [e["type"] for _, e in after] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
        assert after[1][1]["messages"][-1]["content"] == FULL


async def test_resuming_a_running_run_sends_only_the_events_after_the_named_one(server: str) -> None:
    thread = f"resume-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(timeout=30) as http:
        cm, _ = await started_run(http, server, thread, WORDS)
        try:
            async with http.stream("GET", f"{server}/agui/threads/{thread}/connect") as response:
                head: list[tuple[str | None, Any]] = []
                async for item in sse(response):
                    head.append(item)
                    if len(head) == 8:
                        break  # the connection breaks
            last = head[-1][0]
            assert last is not None
            rest = await connect(http, server, thread, params={"lastEventId": last})
        finally:
            await cm.__aexit__(None, None, None)
    # RUN_STARTED again and the openers of the open step and message, without ids (verifyEvents
    # checks each connection as a run), then the events after the named one.
    assert rest[0] == (None, head[0][1])
    assert [e["type"] for i, e in rest[1:3] if i is None] == ["STEP_STARTED", "TEXT_MESSAGE_START"]
    assert rest[1:3] == [(None, e) for _, e in head if e["type"] in ("STEP_STARTED", "TEXT_MESSAGE_START")]
    assert rest[3][0] == f"{last.rsplit(':', 1)[0]}:{int(last.rsplit(':', 1)[1]) + 1}"
    assert "MESSAGES_SNAPSHOT" not in [e["type"] for _, e in rest]
    assert text_of(head) + text_of(rest) == FULL


async def test_bad_event_ids_are_400s_naming_where_they_came_from(server: str) -> None:
    thread = f"bad-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(timeout=30) as http:
        url = f"{server}/agui/threads/{thread}/connect"
        response = await http.get(url, headers={"last-event-id": "nope"})
        assert response.status_code == 400
        assert response.json()["detail"][0]["loc"] == ["header", "last-event-id"]
        response = await http.get(url, params={"lastEventId": "x:0"})
        assert response.status_code == 400
        assert response.json()["detail"][0]["loc"] == ["query", "lastEventId"]
        response = await http.get(f"{server}/agui/threads/a%20b/connect")
        assert response.status_code == 400
        cm, _ = await started_run(http, server, thread, WORDS)
        try:
            head = await anext(sse_items(http, url))
            turn = head[0].rsplit(":", 1)[0]
            response = await http.get(url, headers={"last-event-id": f"{turn}:99999"})
            assert response.status_code == 400
            assert response.json()["detail"][0]["type"] == "last_event_id_not_sent"
        finally:
            await cm.__aexit__(None, None, None)
        response = await http.get(f"{server}/agents/nobody/agui/threads/{thread}/connect")
        assert response.status_code == 404


async def sse_items(http: httpx.AsyncClient, url: str) -> AsyncIterator[Any]:
    async with http.stream("GET", url) as response:
        async for item in sse(response):
            yield item


async def test_the_client_module_is_served_as_it_is_kept_in_web(server: str) -> None:
    source = (Path(__file__).parents[3] / "web" / "agui" / "reconnecting-agent.js").read_bytes()
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.get(f"{server}/agui/client.js")
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/javascript; charset=utf-8"
        assert response.content == source
        etag = response.headers["etag"]
        again = await http.get(f"{server}/agui/client.js", headers={"if-none-match": etag})
        assert again.status_code == 304


@pytest.fixture
def workers(postgres_url: str, redis_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    env = {
        "PYTHONPATH": os.pathsep.join([str(E2E_AGENTS), os.environ.get("PYTHONPATH", "")]),
        "TURNWIRE_REDIS_URL": redis_url,
        "TURNWIRE_APPROVAL_SECRET_FILE": str(tmp_path / "secret"),
    }
    args = ("--db", postgres_url, "--keepalive", "0", "--agent", "long=store_e2e_agents:long")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        turnwire_process(tmp_path / "a", *args, env=env) as (first, _),
        turnwire_process(tmp_path / "b", *args, env=env) as (second, _),
    ):
        yield first, second


async def test_a_run_on_one_worker_is_connected_to_and_resumed_on_the_other(workers: tuple[str, str]) -> None:
    url_a, url_b = workers
    thread = f"workers-{uuid.uuid4().hex[:8]}"
    async with httpx.AsyncClient(timeout=30) as http:
        cm, body = await started_run(http, url_a, thread, WORDS)
        try:
            await asyncio.sleep(0.15)
            head: list[tuple[str | None, Any]] = []
            async for item in sse_items(http, f"{url_b}/agents/long/agui/threads/{thread}/connect"):
                head.append(item)
                if len(head) == 10:
                    break
            last = head[-1][0]
            assert last is not None
            rest = await connect(http, url_b, thread, headers={"last-event-id": last})
        finally:
            await cm.__aexit__(None, None, None)
        stored = (await http.get(f"{url_b}/tasks/{thread}/messages", params={"format": "agui"})).json()
    assert [e["type"] for _, e in head[:2]] == ["RUN_STARTED", "MESSAGES_SNAPSHOT"]
    assert head[0][1]["runId"] == body["runId"]
    assert [m["id"] for m in head[1][1]["messages"]] == [body["messages"][0]["id"]]
    assert rest[0] == (None, head[0][1])
    assert all(i is not None for i, _ in rest[3:])
    assert text_of(head) + text_of(rest) == FULL
    assert rest[-1][1]["type"] == "RUN_FINISHED"
    assert stored["messages"][-1]["content"] == FULL
