"""``a2a_agent(url)``: a remote A2A agent served by turnwire on its other doors.

Two remotes on loopback: a reference agent built from ``a2a-sdk``'s own server classes
(``DefaultRequestHandler``, ``InMemoryTaskStore``, ``TaskUpdater``, the JSON-RPC and card routes,
a small executor written here), and turnwire's own A2A door serving the demo agent. The remote
agent is then driven through turnwire's ``/agui`` door: streamed text, a question, an approval
round trip (the remote's tool runs once), and a stop that cancels the remote task.
"""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import uvicorn
from a2a.helpers.proto_helpers import new_task_from_user_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes.agent_card_routes import create_agent_card_routes
from a2a.server.routes.jsonrpc_routes import create_jsonrpc_routes
from a2a.server.tasks.inmemory_task_store import InMemoryTaskStore
from a2a.server.tasks.task_updater import TaskUpdater
from a2a.types import a2a_pb2
from starlette.applications import Starlette

from services import free_port, serve_app
from turnwire.agents import builtin_agents
from turnwire.agents.a2a import a2a_agent
from turnwire.server import Settings, create_app

CANCELED: list[str] = []
ASKED: set[str] = set()


class Reference(AgentExecutor):
    """``hello`` streams two chunks; ``ask`` asks for a name and greets it; ``slow`` streams a
    chunk every 50 ms for 10 s (a stop must cancel it)."""

    async def execute(self, context: RequestContext, event_queue: Any) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        text = context.get_user_input()
        if context.current_task is None:  # the executor's first event must be the task
            assert context.message is not None
            await event_queue.enqueue_event(new_task_from_user_message(context.message))
        await updater.start_work()
        if (
            context.current_task is not None
            and context.current_task.status.state == a2a_pb2.TASK_STATE_INPUT_REQUIRED
        ):
            await updater.add_artifact(
                [a2a_pb2.Part(text=f"Hi {text}!")], artifact_id="greet", last_chunk=True
            )
            await updater.complete()
            return
        if text == "ask":
            ASKED.add(task_id)
            prompt = updater.new_agent_message([a2a_pb2.Part(text="Your name?")])
            await updater.requires_input(prompt)
            return
        if text == "slow":
            for n in range(200):
                await updater.add_artifact([a2a_pb2.Part(text=f"{n} ")], artifact_id="slow", append=n > 0)
                await asyncio.sleep(0.05)
            await updater.complete()
            return
        await updater.add_artifact([a2a_pb2.Part(text="Hello, ")], artifact_id="a", append=False)
        await updater.add_artifact(
            [a2a_pb2.Part(text="world")], artifact_id="a", append=True, last_chunk=True
        )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: Any) -> None:
        CANCELED.append(context.task_id or "")
        await TaskUpdater(event_queue, context.task_id or "", context.context_id or "").cancel()


def reference_app(url: str) -> Starlette:
    card = a2a_pb2.AgentCard(
        name="reference",
        description="a2a-sdk reference agent",
        version="1.0.0",
        supported_interfaces=[
            a2a_pb2.AgentInterface(url=f"{url}/", protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=a2a_pb2.AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[a2a_pb2.AgentSkill(id="greet", name="greet", description="Greets", tags=["demo"])],
    )
    handler = DefaultRequestHandler(Reference(), InMemoryTaskStore(), card)
    return Starlette(routes=[*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")])


@pytest.fixture(scope="module")
def reference_url() -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = uvicorn.Server(
        uvicorn.Config(reference_app(url), host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the reference server did not start"
        time.sleep(0.02)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(10)


def _settings(home: Path) -> Settings:
    return Settings(
        db_url=f"sqlite+aiosqlite:///{home / 'turnwire.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
    )


@pytest.fixture(scope="module")
def turnwire_remote(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """turnwire's own A2A door, serving the demo agent: the remote for the second adapter."""
    with serve_app(
        create_app(builtin_agents(), settings=_settings(tmp_path_factory.mktemp("remote"))), lifespan="on"
    ) as url:
        yield url


@pytest.fixture(scope="module")
def local_url(
    tmp_path_factory: pytest.TempPathFactory, reference_url: str, turnwire_remote: str
) -> Iterator[str]:
    agents = {
        "reference": a2a_agent(reference_url),
        "remote": a2a_agent(f"{turnwire_remote}/.well-known/agent-card.json"),
    }
    with serve_app(
        create_app(agents, settings=_settings(tmp_path_factory.mktemp("local"))), lifespan="on"
    ) as url:
        yield url


def agui(url: str, agent: str, thread: str, messages: list[Any], **extra: Any) -> list[dict[str, Any]]:
    body = {"threadId": thread, "runId": uuid.uuid4().hex, "messages": messages, **extra}
    # No messages: the client sends only its answers (the stored conversation holds the rest).
    headers = {} if messages else {"x-ag-history": "stored"}
    r = httpx.post(f"{url}/agents/{agent}/agui", json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    return [orjson.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]


def user(text: str) -> dict[str, Any]:
    return {"id": uuid.uuid4().hex, "role": "user", "content": text}


def said(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")


def test_the_reference_agents_stream_reaches_an_agui_client(local_url: str) -> None:
    events = agui(local_url, "reference", uuid.uuid4().hex, [user("hello")])
    assert said(events) == "Hello, world"
    assert events[-1]["type"] == "RUN_FINISHED"
    deltas = [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert deltas == ["Hello, ", "world"]  # chunk by chunk, as the remote streamed them


def test_a_remote_question_pauses_and_the_answer_goes_back_on_its_task(local_url: str) -> None:
    thread = uuid.uuid4().hex
    first = agui(local_url, "reference", thread, [user("ask")])
    assert "Your name?" in said(first)
    outcome = first[-1]["outcome"]
    assert outcome["type"] == "interrupt" and outcome["interrupts"][0]["reason"] == "input_required"
    interrupt = outcome["interrupts"][0]["id"]
    resume = [{"interruptId": interrupt, "status": "resolved", "payload": "Ada"}]
    second = agui(local_url, "reference", thread, [], resume=resume)
    assert said(second) == "Hi Ada!"


@pytest.mark.anyio
async def test_a_stop_cancels_the_remote_task(local_url: str) -> None:
    thread = f"slow-{uuid.uuid4().hex[:8]}"
    before = len(CANCELED)
    body = {"threadId": thread, "runId": "r1", "messages": [user("slow")]}
    async with httpx.AsyncClient(timeout=30) as http:
        async with http.stream("POST", f"{local_url}/agents/reference/agui", json=body) as r:
            async for line in r.aiter_lines():
                if '"TEXT_MESSAGE_CONTENT"' in line:
                    break
        # The client left: the turn is cancelled (the default), and with it the remote task.
        deadline = time.monotonic() + 10
        while len(CANCELED) == before and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
    assert len(CANCELED) == before + 1


def test_the_remote_cards_skills_are_listed_on_the_local_card(local_url: str) -> None:
    agui(local_url, "reference", uuid.uuid4().hex, [user("hello")])
    r = httpx.get(f"{local_url}/a2a/reference/.well-known/agent-card.json")
    assert r.status_code == 200  # the adapted agent has a card of its own on this server too
    assert [s["id"] for s in r.json()["skills"]] == ["greet"]  # the remote card's skills


def test_turnwire_over_a2a_weather_and_an_approval_round_trip(local_url: str) -> None:
    events = agui(local_url, "remote", uuid.uuid4().hex, [user("weather in Paris")])
    assert said(events) == "It is sunny and 21 °C in Paris."
    assert [e["toolCallName"] for e in events if e["type"] == "TOOL_CALL_START"] == ["get_weather"]

    thread = uuid.uuid4().hex
    paused = agui(local_url, "remote", thread, [user("delete x.txt")])
    outcome = paused[-1]["outcome"]
    assert outcome["type"] == "interrupt"
    (interrupt,) = outcome["interrupts"]
    assert interrupt["reason"] == "tool_call" and interrupt["toolCallId"] == "call_1"
    assert [e["toolCallName"] for e in paused if e["type"] == "TOOL_CALL_START"] == ["delete_file"]
    assert interrupt["metadata"]["turnwire"]["requestId"].startswith("ap_")  # signed here
    resume = [{"interruptId": interrupt["id"], "status": "resolved", "payload": {"approved": True}}]
    done = agui(local_url, "remote", thread, [], resume=resume)
    assert said(done) == "Deleted x.txt."
    # A forged answer is refused here before the remote hears of it.
    forged = interrupt["id"].rsplit("/", 1)[0] + "/ap_forged"
    body = {
        "threadId": thread,
        "runId": "r2",
        "messages": [],
        "resume": [{"interruptId": forged, "status": "resolved", "payload": {"approved": True}}],
    }
    refused = httpx.post(
        f"{local_url}/agents/remote/agui", json=body, headers={"x-ag-history": "stored"}, timeout=30
    )
    assert refused.status_code in (409, 422), refused.text
