"""An approval token answers its tool call once: re-sent, raced or flipped, the tool never runs twice.

Attacks from the field, on every door (Agenta JSON and SSE, useChat SSE, Agentex JSON and NDJSON)
and on SQLite and PostgreSQL: re-sending an approved history without the tool's result; twenty
concurrent resumes of one pending approval; a denied decision re-sent approved with the same token.
Then two ``turnwire serve`` workers on one PostgreSQL + Redis, resumed concurrently on both.
``executions`` counts the demo's ``delete_file`` really running.
"""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import os
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from approvals_flows import AgentaBatch, AgentaStream, Reply, UseChat
from approvals_new_doors import AgUiRun, OpenAIChat
from one_shot_agents import counting
from test_approval_doors import AgentexSend

from services import serve_app, turnwire_process
from store_databases import BACKENDS, execute, fresh_database
from turnwire.server import Settings, create_app

HERE = Path(__file__).parent
_ids = itertools.count()
CONCURRENT = 20


class AgentexStream(AgentexSend):
    """Agentex ``message/send`` with ``stream: true``: NDJSON, one JSON-RPC reply per update."""

    name = "agentex-ndjson"

    def send(self, url: str, session: str, content: dict[str, Any]) -> Reply:
        body = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "message/send",
            "params": {"task_name": session, "content": content, "stream": True},
        }
        response = httpx.post(f"{url}/agents/name/demo/rpc", json=body, timeout=30)
        if response.headers["content-type"].startswith("application/json"):
            reply = response.json()  # refused before the stream started
            return Reply(400, reply["error"], [])
        out = Reply(200, [], [])
        texts: dict[Any, str] = {}
        for line in response.text.splitlines():
            frame = orjson.loads(line)
            if frame["error"] is not None:
                return Reply(500, frame["error"], [])
            update = frame["result"]
            out.body.append(update)
            c = update.get("content") or {}
            if c.get("type") == "tool_response":
                denied = isinstance(c["content"], dict) and c["content"].get("denied")
                out.outcomes[c["tool_call_id"]] = "denied" if denied else "output"
            elif c.get("type") == "text":
                texts[update["index"]] = c.get("content") or ""
            delta = update.get("delta") or {}
            if delta.get("type") == "text":
                texts[update["index"]] = texts.get(update["index"], "") + delta["text_delta"]
        out.text = list(texts.values())[-1] if texts else ""
        return out


FLOWS = [AgentaBatch(), AgentaStream(), UseChat(), AgUiRun(), OpenAIChat(), AgentexSend(), AgentexStream()]


@dataclass
class Running:
    url: str
    executions: list[str]
    db_url: str = ""


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    home = tmp_path_factory.mktemp("one-shot")
    pg = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    db_url = fresh_database(request.param, home, pg)
    settings = Settings(db_url=db_url, approval_secret_file=str(home / "secret"))
    executions: list[str] = []
    with serve_app(create_app({"demo": counting(executions)}, settings=settings)) as url:
        yield Running(url, executions, db_url)


@pytest.fixture(params=FLOWS, ids=lambda f: f.name)
def flow(request: pytest.FixtureRequest):
    return request.param


def pause(flow, url: str) -> tuple[str, Reply]:
    sid = f"once-{flow.name}-{next(_ids)}"
    first = AgentexSend() if isinstance(flow, AgentexSend) else flow
    paused = first.first(url, sid, "delete notes.txt")
    assert paused.status == 200 and list(paused.gates) == ["call_1"], paused.body
    return sid, paused


def refusal(flow, reply: Reply) -> str:
    """The message of a refused request, and (outside Agentex) the field it names."""
    if isinstance(flow, AgentexSend):
        return reply.body["message"]
    if isinstance(flow, OpenAIChat):
        error = reply.body["error"]
        return f"{error.get('code')}: {error['message']}"
    [error] = reply.body["detail"]
    assert error["loc"][0] == "body", error  # the message holding the decision (AG-UI: its resume)
    return error["type"] + ": " + error["msg"]


def test_resending_an_approved_history_replays_the_result(flow, server: Running) -> None:
    sid, paused = pause(flow, server.url)
    first = flow.decide(server.url, sid, paused, {"call_1": True})
    assert first.status == 200 and first.outcomes == {"call_1": "output"}, first.body
    ran = len(server.executions)
    for _ in range(3):
        again = flow.decide(server.url, sid, paused, {"call_1": True})
        assert again.status == 200, again.body
        assert again.text == first.text == "Deleted notes.txt."
        if not isinstance(flow, AgentexSend):  # full-history clients get the stored result replayed
            assert again.outcomes == {"call_1": "output"}
    assert len(server.executions) == ran


def test_concurrent_resumes_of_one_approval_run_the_tool_once(flow, server: Running) -> None:
    sid, paused = pause(flow, server.url)
    before = len(server.executions)
    with ThreadPoolExecutor(CONCURRENT) as pool:
        replies = list(
            pool.map(lambda _: flow.decide(server.url, sid, paused, {"call_1": True}), range(CONCURRENT))
        )
    assert len(server.executions) == before + 1
    ok = [r for r in replies if r.status == 200]
    assert ok and all(r.text == "Deleted notes.txt." for r in ok)
    refused = [r for r in replies if r.status != 200]
    assert all(r.status in (400, 409) for r in refused), [r.body for r in refused]
    assert all(
        "decision_in_progress" in refusal(flow, r) or "already sent" in refusal(flow, r) for r in refused
    )


def test_a_token_used_to_deny_never_approves(flow, server: Running) -> None:
    sid, paused = pause(flow, server.url)
    denied = flow.decide(server.url, sid, paused, {"call_1": False})
    assert denied.status == 200 and denied.text == "I did not delete notes.txt.", denied.body
    before = len(server.executions)
    flipped = flow.decide(server.url, sid, paused, {"call_1": True})
    assert flipped.status in (400, 409), flipped.body
    message = refusal(flow, flipped)
    assert "'call_1' was already denied" in message
    assert len(server.executions) == before
    # The recorded answer still holds: the same denial is answered again, nothing runs.
    again = flow.decide(server.url, sid, paused, {"call_1": False})
    assert again.status == 200 and again.text == "I did not delete notes.txt."
    assert len(server.executions) == before


@pytest.mark.postgres
@pytest.mark.redis
def test_two_workers_resumed_concurrently_run_the_tool_once(
    postgres_url: str, redis_url: str, tmp_path: Path
) -> None:
    db = fresh_database("postgres", tmp_path, postgres_url)
    count = tmp_path / "executions"
    env = {
        "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        "TURNWIRE_APPROVAL_SECRET": "two-workers-share-this-secret",
        "TURNWIRE_TEST_EXECUTIONS": str(count),
    }
    args = ("--db", db, "--redis", redis_url, "--agent", "demo=one_shot_agents:counted_demo")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with (
        turnwire_process(tmp_path / "a", *args, env=env) as (url_a, _),
        turnwire_process(tmp_path / "b", *args, env=env) as (url_b, _),
    ):
        for flow in (AgentaBatch(), UseChat(), AgentexSend()):
            sid, paused = pause(flow, url_a)
            urls = [url_a, url_b] * (CONCURRENT // 2)

            def resume(url: str, flow=flow, sid=sid, paused=paused) -> Reply:
                return flow.decide(url, sid, paused, {"call_1": True})

            with ThreadPoolExecutor(CONCURRENT) as pool:
                replies = list(pool.map(resume, urls))
            assert any(r.status == 200 for r in replies), flow.name
            runs = count.read_text().splitlines() if count.exists() else []
            assert len(runs) == 1, (flow.name, runs)
            count.unlink()


@pytest.mark.parametrize("flow", [AgentaBatch(), AgentexSend()], ids=lambda f: f.name)
def test_gates_answered_one_at_a_time_run_each_tool_once(flow, server: Running) -> None:
    """The first answer is recorded while the agent still waits on the other gate; the request that
    answers the other gate takes it over, and each call runs once even when that request is raced."""
    sid = f"once-two-{flow.name}-{next(_ids)}"
    paused = flow.first(server.url, sid, "delete a.txt and b.txt")
    assert sorted(paused.gates) == ["call_1", "call_2"], paused.body
    before = len(server.executions)
    waiting = flow.decide(server.url, sid, paused, {"call_1": True})
    assert waiting.status == 200 and list(waiting.gates) == ["call_2"], waiting.body
    assert len(server.executions) == before  # the demo runs nothing until every gate is answered

    def answer(_: int) -> Reply:
        return flow.decide(server.url, sid, waiting, {"call_2": True})

    with ThreadPoolExecutor(CONCURRENT) as pool:
        replies = list(pool.map(answer, range(CONCURRENT)))
    assert any(r.status == 200 and r.text == "Deleted a.txt. Deleted b.txt." for r in replies)
    assert sorted(server.executions[before:]) == ["call_1", "call_2"]


def test_a_claim_left_by_a_turn_that_never_finished_does_not_block_the_session(server: Running) -> None:
    """A turn that held a claim and died before its tool's result was recorded (its client left, its
    process was killed): the same decision is refused — the tool may have run — and once the user
    moves on, the call reads as not run and the conversation goes on."""
    flow = AgentaBatch()
    sid, paused = pause(flow, server.url)
    task_id = httpx.get(f"{server.url}/tasks/name/{sid}").json()["id"]
    digest = hashlib.sha256(paused.gates["call_1"].encode()).hexdigest()
    asyncio.run(
        execute(
            server.db_url,
            "INSERT INTO decisions (task_id, token_digest, tool_call_id, approved, state, created_at) "
            f"VALUES ('{task_id}', '{digest}', 'call_1', true, 'running', 0)",
        )
    )
    before = len(server.executions)
    again = flow.decide(server.url, sid, paused, {"call_1": True})
    assert again.status == 409 and "decision_in_progress" in refusal(flow, again)
    decision = {"role": "tool", "content": {"approved": True, "interactionToken": paused.gates["call_1"]}}
    decision["tool_call_id"] = "call_1"
    moved_on = flow.send(server.url, sid, [*paused.history, decision, {"role": "user", "content": "hello"}])
    assert moved_on.status == 200 and moved_on.text == "You said: hello", moved_on.body
    assert len(server.executions) == before
