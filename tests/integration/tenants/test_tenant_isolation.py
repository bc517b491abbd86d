"""API keys and tenants over HTTP, on SQLite and PostgreSQL: every route but ``/health`` needs a
key, and one tenant's key reaches none of another tenant's tasks.

The route list comes from the app's OpenAPI document, and every route must have an entry in
``ATTACKS``: a route added later fails here until someone says how it keeps tenants apart.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from agentex import Agentex, AuthenticationError

from services import serve_app
from store_databases import BACKENDS, fresh_database
from turnwire.agents import demo_agent
from turnwire.model import Event, ToolResult
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

ALICE_KEY = "alice-key-" + "a" * 24
BOB_KEY = "bob-key-" + "b" * 24
ALICE = {"authorization": f"Bearer {ALICE_KEY}"}
BOB = {"authorization": f"Bearer {BOB_KEY}"}
TEXT = {"type": "text", "author": "user", "content": "written by bob"}


@dataclass
class Victim:
    """What alice has on the server, and what bob may try to reach."""

    url: str
    executions: list[str]
    task_id: str = ""
    task_name: str = ""
    message_id: str = ""
    token: str = ""
    history: list[Any] = field(default_factory=list)
    message_count: int = 0
    named_task: str = ""
    agent_id: str = ""
    response_id: str = ""


def counting(executions: list[str]):
    async def agent(ctx: TurnContext) -> AsyncIterator[Event]:
        async for event in demo_agent(ctx):
            if isinstance(event, ToolResult) and not event.denied and not event.is_error:
                executions.append(event.id or "")
            yield event

    return agent


def invoke(url: str, headers: dict[str, str], session: str, messages: list[Any]) -> httpx.Response:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    return httpx.post(f"{url}/invoke", json=body, headers=headers, timeout=20)


def rpc(url: str, headers: dict[str, str], method: str, params: dict[str, Any], path: str) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    response = httpx.post(f"{url}{path}", json=body, headers=headers, timeout=20)
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(scope="module", params=BACKENDS)
def victim(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Victim]:
    home: Path = tmp_path_factory.mktemp("tenants")
    pg = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    settings = Settings(
        db_url=fresh_database(request.param, home, pg),
        approval_secret_file=str(home / "secret"),
        api_keys=f"alice:{ALICE_KEY},bob:{BOB_KEY}",
    )
    executions: list[str] = []
    with serve_app(create_app({"demo": counting(executions)}, settings=settings)) as url:
        v = Victim(url, executions)
        history = [{"role": "user", "content": "delete important.db"}]
        paused = invoke(url, ALICE, "victim", history)
        assert paused.status_code == 200, paused.text
        outputs = paused.json()["data"]["outputs"]
        [gate] = outputs["pending_interactions"]
        v.token, v.history = gate["id"], [*history, *outputs["messages"]]
        v.task_id, v.task_name = paused.headers["x-ag-task-id"], "victim"
        listed = httpx.get(f"{url}/messages", params={"task_id": v.task_id}, headers=ALICE).json()
        v.message_id, v.message_count = listed[0]["id"], len(listed)
        created = rpc(
            url,
            ALICE,
            "task/create",
            {"name": "alice-named", "params": {"api_key": "sk-alice-secret"}},
            "/agents/name/demo/rpc",
        )
        v.named_task = created["result"]["id"]
        v.agent_id = httpx.get(f"{url}/agents", headers=ALICE).json()[0]["id"]
        answered = httpx.post(f"{url}/v1/responses", json={"model": "demo", "input": "hi"}, headers=ALICE)
        v.response_id = answered.json()["id"]
        yield v


def fill(path: str, v: Victim) -> str:
    return (
        path.replace("{task_id}", v.task_id)
        .replace("{task_name}", v.task_name)
        .replace("{message_id}", v.message_id)
        .replace("{agent_id}", v.agent_id)
        .replace("{agent_name}", "demo")
        .replace("{name}", "demo")
        .replace("{ag_type}", "messages")
        .replace("{model}", "demo")
        .replace("{chat_id}", LIVE_CHAT)
        .replace("{session_id}", LIVE_SESSION)
        .replace("{response_id}", v.response_id)
        .replace("{conversation_id}", v.task_name)
    )


def call(method: str, path: str, v: Victim, headers: dict[str, str], **kw: Any) -> httpx.Response:
    return httpx.request(method.upper(), v.url + fill(path, v), headers=headers, timeout=20, **kw)


# ------------------------------------------------------------------ what bob tries, per route


def not_found(method: str, path: str, v: Victim, **kw: Any) -> None:
    response = call(method, path, v, BOB, **kw)
    assert response.status_code == 404, response.text
    assert v.task_id not in response.text or response.json().get("message", "").startswith("Item")


def tenant_free(method: str, path: str, v: Victim, **kw: Any) -> None:
    """Routes about the server (agents, types), not about tasks: any key may read them."""
    response = call(method, path, v, BOB, **kw)
    assert response.status_code == 200, response.text


def list_tasks(method: str, path: str, v: Victim) -> None:
    response = call(method, path, v, BOB)
    assert response.status_code == 200
    ids = {t["id"] for t in response.json()}
    assert v.task_id not in ids and v.named_task not in ids


def list_conversations(method: str, path: str, v: Victim) -> None:
    for params in ({}, {"q": "victim"}, {"q": "delete"}):
        response = call(method, path, v, BOB, params=params)
        assert response.status_code == 200, response.text
        ids = {c["id"] for c in response.json()["conversations"]}
        assert v.task_id not in ids and v.named_task not in ids


def label_conversation(method: str, path: str, v: Victim) -> None:
    not_found(method, path, v, json={"title": "renamed by bob", "agent": "demo"})


def list_messages(method: str, path: str, v: Victim) -> None:
    response = call(method, path, v, BOB, params={"task_id": v.task_id})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body if isinstance(body, list) else body["data"]) == []


def write_message(method: str, path: str, v: Victim) -> None:
    if path == "/messages/batch":
        body = (
            {"task_id": v.task_id, "contents": [TEXT]}
            if method == "post"
            else {"task_id": v.task_id, "updates": {v.message_id: TEXT}}
        )
    else:
        body = {"task_id": v.task_id, "content": TEXT}
    not_found(method, path, v, json=body)


def agent_rpc(method: str, path: str, v: Victim) -> None:
    sent = rpc(v.url, BOB, "message/send", {"task_id": v.task_id, "content": TEXT}, fill(path, v))
    assert sent["result"] is None and "does not exist" in sent["error"]["message"]
    canceled = rpc(v.url, BOB, "task/cancel", {"task_id": v.task_id}, fill(path, v))
    assert canceled["result"] is None and "does not exist" in canceled["error"]["message"]
    # Asking for alice's task by its name gives bob a task of his own with that name.
    mine = rpc(v.url, BOB, "task/create", {"name": "alice-named"}, fill(path, v))["result"]
    assert mine["id"] != v.named_task


def start_turn(method: str, path: str, v: Victim) -> None:
    """A turn on alice's session id (or task id) is a turn of bob's own session of that name; the
    decision alice was issued does not verify there (tokens are bound to the tenant)."""
    decision = {"role": "tool", "content": {"approved": True, "interactionToken": v.token}}
    decision["tool_call_id"] = "call_1"
    # Alice's other task, by name and by id: bob's turns create his own tasks under those names,
    # and the routes that take "an id or a name" are tested on "victim", which bob never names.
    for session in ("alice-named", v.named_task):
        if path.endswith("/invoke"):
            body = {"session_id": session, "data": {"inputs": {"messages": [*v.history, decision]}}}
            response = call(method, path, v, BOB, json=body)
        else:
            ui = [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hello"}]}]
            response = call(method, path, v, BOB, json={"id": session, "messages": ui})
            assert response.status_code == 200
            response = call(method, path, v, BOB, json={"id": session, "messages": ui})
        if path.endswith("/invoke"):
            assert response.status_code == 409, response.text
        assert response.headers.get("x-ag-task-id") not in (v.task_id, v.named_task)
        assert "important.db" not in response.text


def new_door_turn(method: str, path: str, v: Victim) -> None:
    """AG-UI's thread and the OpenAI door's session header, naming alice's other task (by name and
    id): a new session of bob's own."""
    for session in ("alice-named", v.named_task):
        if path.endswith("/agui"):
            user = {"id": "u1", "role": "user", "content": "hello"}
            body = {"threadId": session, "runId": uuid.uuid4().hex, "messages": [user]}
            response = call(method, path, v, BOB, json=body)
        else:
            body = {"model": "demo", "messages": [{"role": "user", "content": "hello"}]}
            response = call(method, path, v, {**BOB, "x-ag-session-id": session}, json=body)
        assert response.status_code == 200, response.text
        assert response.headers.get("x-ag-task-id") not in (v.task_id, v.named_task)


def responses_turn(method: str, path: str, v: Victim) -> None:
    """The Responses door: alice's response does not continue for bob (404), alice's task named as
    ``conversation`` is a session of bob's own, and alice's approval token is refused there."""
    body = {"model": "demo", "input": "hello", "previous_response_id": v.response_id}
    response = call(method, path, v, BOB, json=body)
    assert response.status_code == 404, response.text
    answer = {"type": "mcp_approval_response", "approval_request_id": v.token, "approve": True}
    # Alice's other task by name and id, like ``start_turn`` (bob never names "victim").
    for session in ("alice-named", v.named_task):
        response = call(
            method, path, v, BOB, json={"model": "demo", "input": [answer], "conversation": session}
        )
        assert response.status_code == 409, response.text
        response = call(
            method, path, v, BOB, json={"model": "demo", "input": "hello", "conversation": session}
        )
        assert response.status_code == 200, response.text
        assert response.headers.get("x-ag-task-id") not in (v.task_id, v.named_task)
        assert "important.db" not in response.text


def stored_response(method: str, path: str, v: Victim) -> None:
    """Alice's stored response reads as unknown to bob, and stays alice's."""
    not_found(method, path, v)
    mine = httpx.get(f"{v.url}/v1/responses/{v.response_id}", headers=ALICE)
    assert mine.status_code == 200 and mine.json()["status"] == "completed"


def own_conversation(method: str, path: str, v: Victim) -> None:
    """A conversation bob starts is his own session, never alice's."""
    response = call(method, path, v, BOB, json={"items": [{"role": "user", "content": "bob's"}]})
    assert response.status_code == 200, response.text
    assert response.json()["id"] not in (v.task_id, v.task_name, v.named_task)


def conversation_items(method: str, path: str, v: Victim) -> None:
    """Alice's session, by name or id, is no conversation of bob's: reading, adding or deleting is 404."""
    for key in (v.task_name, v.task_id):
        body = {"items": [{"role": "user", "content": "written by bob"}]} if method == "post" else None
        response = httpx.request(
            method.upper(), v.url + path.replace("{conversation_id}", key), headers=BOB, json=body, timeout=20
        )
        assert response.status_code == 404, response.text
        assert "important.db" not in response.text


LIVE_CHAT = "victim-live"


def live_turn(method: str, path: str, v: Victim) -> None:
    """Alice's /chat turn is running: bob's resume finds nothing (204) and bob's stop stops nothing;
    alice's turn runs to its end."""
    user = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "count to 20"}]}
    with httpx.stream(
        "POST", f"{v.url}/chat", json={"id": LIVE_CHAT, "messages": [user]}, headers=ALICE, timeout=30
    ) as alice:
        assert alice.status_code == 200
        lines = alice.iter_lines()
        next(line for line in lines if line.startswith("data: "))
        response = call(method, path, v, BOB)
        if path.endswith("/stream"):
            assert response.status_code == 204, response.text
        else:
            assert response.status_code == 200 and response.json()["stopped"] is False, response.text
        rest = [line for line in lines if line.startswith("data: {")]
    said = [orjson.loads(line[6:]) for line in rest]
    assert said[-1]["type"] == "finish" and said[-1].get("finishReason") != "other"


LIVE_SESSION = "victim-agenta"


def live_agenta_turn(method: str, path: str, v: Victim) -> None:
    """Alice's Agenta SSE turn is running: bob's resume finds nothing (204) — also with the id of
    alice's last event — and alice's stream runs on to its end."""
    body = {
        "session_id": LIVE_SESSION,
        "data": {"inputs": {"messages": [{"role": "user", "content": "count to 20"}]}},
    }
    headers = {**ALICE, "accept": "text/event-stream"}
    with httpx.stream("POST", f"{v.url}/invoke", json=body, headers=headers, timeout=30) as alice:
        assert alice.status_code == 200
        lines = alice.iter_lines()
        last = next(line for line in lines if line.startswith("id: "))[4:]
        for extra in ({}, {"last-event-id": last}):
            response = call(method, path, v, {**BOB, **extra})
            assert response.status_code == 204, response.text
        rest = [line for line in lines if line.startswith("data: {")]
    said = [orjson.loads(line[6:]) for line in rest]
    assert said[-1]["type"] == "done" and said[-1]["data"]["stopReason"] == "end_turn"


LIVE_THREAD = "victim-agui"


def live_agui_thread(method: str, path: str, v: Victim) -> None:
    """Alice's AG-UI run is running: bob's connect to her thread (or to her stored session) is an
    empty thread of his own, framed as a run of nothing — also with the id of alice's last event —
    and alice's stream runs on to its end."""
    body = {
        "threadId": LIVE_THREAD,
        "runId": "r1",
        "messages": [{"id": "u1", "role": "user", "content": "count to 20"}],
    }
    connect = v.url + fill(path, v)
    with httpx.stream("POST", f"{v.url}/agui", json=body, headers=ALICE, timeout=30) as alice:
        assert alice.status_code == 200
        lines = alice.iter_lines()
        next(line for line in lines if '"TEXT_MESSAGE_CONTENT"' in line)
        mine = httpx.get(connect.replace("{thread_id}", LIVE_THREAD), headers=ALICE, timeout=30)
        turn = next(line for line in mine.text.splitlines() if line.startswith("id: "))[4:].rsplit(":", 1)[0]
        for thread, extra in (
            (LIVE_THREAD, {}),
            (LIVE_THREAD, {"last-event-id": f"{turn}:3"}),
            ("victim", {}),
        ):
            response = httpx.get(connect.replace("{thread_id}", thread), headers={**BOB, **extra}, timeout=30)
            assert response.status_code == 200, response.text
            said = [
                orjson.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")
            ]
            assert [e["type"] for e in said] == ["RUN_STARTED", "MESSAGES_SNAPSHOT", "RUN_FINISHED"]
            assert said[1]["messages"] == [] and "id: " not in response.text
        rest = [line for line in lines if line.startswith("data: {")]
    assert orjson.loads(rest[-1][6:])["type"] == "RUN_FINISHED"


A2A_CONTEXT = "alice-a2a"


def a2a_methods(method: str, path: str, v: Victim) -> None:
    """Alice's A2A task waits for an approval: bob's every A2A method (v1.0 and v0.3 names) finds
    no such task, lists none of hers, and his message on her context id is a session of his own,
    where her token verifies for nothing."""
    path = fill(path, v)
    user = {
        "messageId": "m1",
        "role": "ROLE_USER",
        "parts": [{"text": "delete a2a.db"}],
        "contextId": A2A_CONTEXT,
    }
    paused = rpc(v.url, ALICE, "SendMessage", {"message": user}, path)["result"]["task"]
    assert paused["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"
    token = paused["status"]["message"]["parts"][0]["data"]["interactionToken"]
    task_id = paused["id"]
    for name, params in (
        ("GetTask", {"id": task_id}),
        ("CancelTask", {"id": task_id}),
        ("SubscribeToTask", {"id": task_id}),
        ("tasks/get", {"id": task_id}),
        ("tasks/cancel", {"id": task_id}),
        ("SendMessage", {"message": {**user, "taskId": task_id, "parts": [{"data": {"approved": True}}]}}),
    ):
        assert rpc(v.url, BOB, name, params, path)["error"]["code"] == -32001, name
    for params in ({}, {"contextId": A2A_CONTEXT}):
        listed = rpc(v.url, BOB, "ListTasks", params, path)["result"]["tasks"]
        assert task_id not in {t["id"] for t in listed} and "a2a.db" not in orjson.dumps(listed).decode()
    decision = {"approved": True, "interactionToken": token, "toolCallId": "call_1"}
    theirs = {**user, "messageId": "m2", "parts": [{"data": decision}]}
    answer = rpc(v.url, BOB, "SendMessage", {"message": theirs}, path)
    assert "result" in answer and answer["result"]["task"]["id"] != task_id
    mine = rpc(v.url, ALICE, "GetTask", {"id": task_id}, path)["result"]
    assert mine["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"


def a2a_http_json(method: str, path: str, v: Victim) -> None:
    """The HTTP+JSON binding: alice's paused A2A task is not found for bob on any of its routes,
    and his listing holds none of hers."""
    user = {
        "messageId": "m1",
        "role": "ROLE_USER",
        "parts": [{"text": "delete rest.db"}],
        "contextId": "alice-rest",
    }
    paused = rpc(v.url, ALICE, "SendMessage", {"message": user}, "/a2a")["result"]["task"]
    task_id = paused["id"]
    route = fill(path, v).replace(v.task_id, task_id)
    body = {"message": {**user, "taskId": task_id, "parts": [{"data": {"approved": True}}]}}
    if path.endswith("/tasks"):
        response = httpx.get(f"{v.url}{route}", params={"contextId": "alice-rest"}, headers=BOB, timeout=20)
        assert response.status_code == 200 and response.json()["tasks"] == [], response.text
        return
    if method == "get":
        response = httpx.get(f"{v.url}{route}", headers=BOB, timeout=20)
    else:
        response = httpx.post(f"{v.url}{route}", json=body, headers=BOB, timeout=20)
    assert response.status_code == 404, response.text
    assert response.json()["error"]["details"][0]["reason"] == "TASK_NOT_FOUND"
    mine = rpc(v.url, ALICE, "GetTask", {"id": task_id}, "/a2a")["result"]
    assert mine["status"]["state"] == "TASK_STATE_INPUT_REQUIRED"


def spans(method: str, path: str, v: Victim) -> None:
    """Alice's span on her task: bob lists none on it, cannot read or change it, nor hang a span
    of his on her task."""
    mine = {
        "name": "alice-step",
        "start_time": "2026-12-01T10:00:00Z",
        "trace_id": "t-alice",
        "task_id": v.task_id,
    }
    made = httpx.post(f"{v.url}/spans", json=mine, headers=ALICE, timeout=20)
    assert made.status_code == 200, made.text
    span_id = made.json()["id"]
    route = path.replace("{span_id}", span_id)
    if path == "/spans" and method == "get":
        for params in ({"task_id": v.task_id}, {"trace_id": "t-alice"}, {}):
            response = httpx.get(f"{v.url}/spans", params=params, headers=BOB, timeout=20)
            assert response.status_code == 200 and span_id not in response.text, response.text
    elif path == "/spans":
        response = httpx.post(f"{v.url}/spans", json={**mine, "name": "bob"}, headers=BOB, timeout=20)
        assert response.status_code == 422 and response.json()["data"][0]["loc"] == ["body", "task_id"]
    else:
        response = httpx.request(
            method.upper(), f"{v.url}{route}", json={"name": "bob"}, headers=BOB, timeout=20
        )
        assert response.status_code == 404, response.text
    theirs = httpx.get(f"{v.url}/spans/{span_id}", headers=ALICE, timeout=20).json()
    assert theirs["name"] == "alice-step" and theirs["task_id"] == v.task_id


ATTACKS: dict[tuple[str, str], Callable[[str, str, Victim], None]] = {
    ("get", "/invoke/{session_id}/stream"): live_agenta_turn,
    ("get", "/agents/{name}/invoke/{session_id}/stream"): live_agenta_turn,
    ("get", "/chat/{chat_id}/stream"): live_turn,
    ("get", "/agents/{name}/chat/{chat_id}/stream"): live_turn,
    ("post", "/chat/{chat_id}/stop"): live_turn,
    ("post", "/agents/{name}/chat/{chat_id}/stop"): live_turn,
    ("post", "/agui"): new_door_turn,
    ("post", "/agents/{name}/agui"): new_door_turn,
    ("get", "/agui/threads/{thread_id}/connect"): live_agui_thread,
    ("get", "/agents/{name}/agui/threads/{thread_id}/connect"): live_agui_thread,
    ("get", "/agui/client.js"): tenant_free,
    ("get", "/agui/capabilities"): tenant_free,  # what the agent can do: no tenant's data
    ("get", "/agents/{name}/agui/capabilities"): tenant_free,
    ("post", "/v1/chat/completions"): new_door_turn,
    ("post", "/v1/responses"): responses_turn,
    ("get", "/v1/responses/{response_id}"): stored_response,
    ("delete", "/v1/responses/{response_id}"): stored_response,
    ("get", "/v1/responses/{response_id}/input_items"): stored_response,
    ("post", "/v1/responses/{response_id}/cancel"): stored_response,
    ("post", "/v1/conversations"): own_conversation,
    ("get", "/v1/conversations/{conversation_id}"): conversation_items,
    ("delete", "/v1/conversations/{conversation_id}"): conversation_items,
    ("get", "/v1/conversations/{conversation_id}/items"): conversation_items,
    ("post", "/v1/conversations/{conversation_id}/items"): conversation_items,
    ("get", "/v1/models"): tenant_free,
    ("get", "/v1/models/{model}"): tenant_free,
    ("post", "/invoke"): start_turn,
    ("post", "/agents/{name}/invoke"): start_turn,
    ("post", "/chat"): start_turn,
    ("post", "/agents/{name}/chat"): start_turn,
    ("get", "/catalog/types/"): tenant_free,
    ("get", "/catalog/types/{ag_type}"): tenant_free,
    ("get", "/api/workflows/catalog/types/"): tenant_free,
    ("get", "/api/workflows/catalog/types/{ag_type}"): tenant_free,
    ("post", "/messages/batch"): write_message,
    ("put", "/messages/batch"): write_message,
    ("post", "/messages"): write_message,
    ("get", "/messages"): list_messages,
    ("get", "/messages/{message_id}"): not_found,
    ("put", "/messages/{message_id}"): write_message,
    ("get", "/messages/paginated"): list_messages,
    ("get", "/tasks"): list_tasks,
    ("get", "/tasks/name/{task_name}"): not_found,
    ("delete", "/tasks/name/{task_name}"): not_found,
    ("get", "/tasks/{task_id}"): not_found,
    ("delete", "/tasks/{task_id}"): not_found,
    ("get", "/agents"): tenant_free,
    ("get", "/agents/name/{agent_name}"): tenant_free,
    ("post", "/agents/name/{agent_name}/rpc"): agent_rpc,
    ("get", "/agents/{agent_id}"): tenant_free,
    ("post", "/agents/{agent_id}/rpc"): agent_rpc,
    ("get", "/tasks/name/{task_name}/messages"): not_found,
    ("get", "/tasks/{task_id}/messages"): not_found,
    ("get", "/tasks/{task_id}/branches"): not_found,
    ("get", "/conversations"): list_conversations,
    ("patch", "/conversations/{conversation_id}"): label_conversation,
    ("delete", "/conversations/{conversation_id}"): not_found,
    ("get", "/tasks/name/{task_name}/stream"): not_found,
    ("get", "/tasks/{task_id}/stream"): not_found,
    ("get", "/.well-known/agent-card.json"): tenant_free,
    ("get", "/a2a/{name}/.well-known/agent-card.json"): tenant_free,
    ("post", "/a2a"): a2a_methods,
    ("post", "/a2a/{name}"): a2a_methods,
    ("post", "/a2a/{name}/http/message:send"): a2a_http_json,
    ("post", "/a2a/{name}/http/message:stream"): a2a_http_json,
    ("get", "/a2a/{name}/http/tasks"): a2a_http_json,
    ("get", "/a2a/{name}/http/tasks/{task_id}"): a2a_http_json,
    ("post", "/a2a/{name}/http/tasks/{task_id}:cancel"): a2a_http_json,
    ("post", "/a2a/{name}/http/tasks/{task_id}:subscribe"): a2a_http_json,
    ("get", "/spans"): spans,
    ("post", "/spans"): spans,
    ("get", "/spans/{span_id}"): spans,
    ("patch", "/spans/{span_id}"): spans,
}


def _routes() -> list[tuple[str, str]]:
    app = create_app(settings=Settings(api_keys=f"x:{ALICE_KEY}"))
    return [
        (method, path)
        for path, operations in app.openapi()["paths"].items()
        for method in operations
        if path not in ("/health", "/health/ready")  # probes without a key that read no tenant data
    ]


ROUTES = _routes()


def test_every_route_has_an_isolation_check() -> None:
    assert set(ROUTES) == set(ATTACKS), "a route without a cross-tenant check in ATTACKS"


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=lambda r: str(r))
def test_another_tenants_key_reaches_nothing(method: str, path: str, victim: Victim) -> None:
    ATTACKS[(method, path)](method, path, victim)
    # Alice's conversation is untouched, still hers, and nothing ran.
    task = httpx.get(f"{victim.url}/tasks/{victim.task_id}", headers=ALICE)
    assert task.status_code == 200 and task.json()["status"] == "RUNNING"
    listed = httpx.get(f"{victim.url}/messages", params={"task_id": victim.task_id}, headers=ALICE)
    assert len(listed.json()) == victim.message_count
    assert victim.executions == []


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=lambda r: str(r))
@pytest.mark.parametrize("headers", [{}, {"authorization": "Bearer not-a-key"}, {"authorization": ALICE_KEY}])
def test_every_route_but_health_needs_a_key(
    method: str, path: str, headers: dict[str, str], victim: Victim
) -> None:
    response = call(method, path, victim, headers, json={})
    assert response.status_code == 401, response.text
    assert victim.task_id not in response.text


def test_health_needs_no_key(victim: Victim) -> None:
    assert httpx.get(f"{victim.url}/health").status_code == 200


def test_params_are_never_returned(victim: Victim) -> None:
    for path in (f"/tasks/{victim.named_task}", "/tasks/name/alice-named", "/tasks"):
        response = httpx.get(victim.url + path, headers=ALICE)
        assert response.status_code == 200 and "sk-alice-secret" not in response.text


def test_the_owner_approves_and_the_tool_runs_once(victim: Victim) -> None:
    decision = {"role": "tool", "content": {"approved": True, "interactionToken": victim.token}}
    decision["tool_call_id"] = "call_1"
    session = f"own-{uuid.uuid4().hex[:6]}"
    paused = invoke(victim.url, ALICE, session, [{"role": "user", "content": "delete mine.db"}])
    outputs = paused.json()["data"]["outputs"]
    [gate] = outputs["pending_interactions"]
    decision["content"]["interactionToken"] = gate["id"]
    history = [{"role": "user", "content": "delete mine.db"}, *outputs["messages"], decision]
    before = len(victim.executions)
    assert invoke(victim.url, BOB, session, history).status_code == 409  # bob's session of that name
    done = invoke(victim.url, ALICE, session, history)
    assert done.status_code == 200, done.text
    assert len(victim.executions) == before + 1
    victim.executions.clear()


def test_two_tenants_have_separate_sessions_of_one_name(victim: Victim) -> None:
    session = f"same-{uuid.uuid4().hex[:6]}"
    a = invoke(victim.url, ALICE, session, [{"role": "user", "content": "alice speaking"}])
    b = invoke(victim.url, BOB, session, [{"role": "user", "content": "bob speaking"}])
    assert a.headers["x-ag-task-id"] != b.headers["x-ag-task-id"]
    seen = httpx.get(f"{victim.url}/tasks/name/{session}/messages", headers=BOB).text
    assert "bob speaking" in seen and "alice speaking" not in seen


def test_the_agentex_client_sends_its_api_key(victim: Victim) -> None:
    alice = Agentex(base_url=victim.url, api_key=ALICE_KEY, max_retries=0)
    bob = Agentex(base_url=victim.url, api_key=BOB_KEY, max_retries=0)
    assert victim.task_id in [t.id for t in alice.tasks.list()]
    assert victim.task_id not in [t.id for t in bob.tasks.list()]
    assert alice.tasks.retrieve(victim.named_task).params is None
    with pytest.raises(AuthenticationError):
        Agentex(base_url=victim.url, api_key="not-a-key", max_retries=0).tasks.list()


def test_an_idempotency_key_is_per_tenant(victim: Victim) -> None:
    key = {"idempotency-key": f"same-{uuid.uuid4().hex[:6]}"}
    for who in (ALICE, BOB):
        task = rpc(victim.url, who, "task/create", {"name": "idem"}, "/agents/name/demo/rpc")["result"]
        body = {"task_id": task["id"], "content": {**TEXT, "content": str(who)}}
        response = httpx.post(f"{victim.url}/messages", json=body, headers={**who, **key}, timeout=20)
        assert response.status_code == 200, response.text
