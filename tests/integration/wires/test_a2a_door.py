"""The A2A door on a live server, driven by the official ``a2a-sdk`` client (JSON-RPC binding):
card resolution, blocking and streaming sends, get, list, cancel of a running turn, subscribe,
approval and question round trips (forged, replayed and foreign answers refused, the tool never
run), the conversation readable on another door, and bad requests answered as A2A errors."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, create_client
from a2a.types import a2a_pb2
from a2a.utils.errors import (
    InvalidParamsError,
    TaskNotCancelableError,
    TaskNotFoundError,
    UnsupportedOperationError,
)
from google.protobuf import json_format

pytestmark = pytest.mark.anyio

COMPLETED, INPUT_REQUIRED, CANCELED, WORKING = (
    a2a_pb2.TASK_STATE_COMPLETED,
    a2a_pb2.TASK_STATE_INPUT_REQUIRED,
    a2a_pb2.TASK_STATE_CANCELED,
    a2a_pb2.TASK_STATE_WORKING,
)


async def client_for(url: str, *, streaming: bool) -> tuple[Any, httpx.AsyncClient]:
    http = httpx.AsyncClient(timeout=30)
    client = await create_client(url, ClientConfig(streaming=streaming, httpx_client=http))
    return client, http


def user(text: str | None = None, *, task: str = "", context: str = "", data: Any = None) -> a2a_pb2.Message:
    raw: dict[str, Any] = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": []}
    if text is not None:
        raw["parts"].append({"text": text})
    if data is not None:
        raw["parts"].append({"data": data})
    if task:
        raw["taskId"] = task
    if context:
        raw["contextId"] = context
    return json_format.ParseDict(raw, a2a_pb2.Message())


async def send(
    url: str, message: a2a_pb2.Message, *, streaming: bool = False
) -> list[a2a_pb2.StreamResponse]:
    client, http = await client_for(url, streaming=streaming)
    try:
        return [e async for e in client.send_message(a2a_pb2.SendMessageRequest(message=message))]
    finally:
        await http.aclose()


async def send_task(url: str, message: a2a_pb2.Message) -> a2a_pb2.Task:
    (event,) = await send(url, message)
    assert event.HasField("task")
    return event.task


def answer_text(task: a2a_pb2.Task) -> str:
    return "".join(p.text for a in task.artifacts for p in a.parts)


def data_of(part: a2a_pb2.Part) -> dict[str, Any]:
    return json_format.MessageToDict(part)["data"]


async def get_task(url: str, task_id: str, history_length: int | None = None) -> a2a_pb2.Task:
    client, http = await client_for(url, streaming=False)
    try:
        request = a2a_pb2.GetTaskRequest(id=task_id)
        if history_length is not None:
            request.history_length = history_length
        return await client.get_task(request)
    finally:
        await http.aclose()


# --------------------------------------------------------------------------- cards


async def test_the_default_and_named_agent_cards_resolve_with_absolute_urls(wires_url: str) -> None:
    async with httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, wires_url).get_agent_card()
        named = await A2ACardResolver(http, f"{wires_url}/a2a/broken").get_agent_card()
    assert card.name == "demo"
    assert [(i.url, i.protocol_binding, i.protocol_version) for i in card.supported_interfaces] == [
        (f"{wires_url}/a2a", "JSONRPC", "1.0"),
        (f"{wires_url}/a2a/demo/http", "HTTP+JSON", "1.0"),
    ]
    assert card.capabilities.streaming and not card.capabilities.push_notifications
    assert card.skills and not card.security_schemes  # no API keys on this server
    assert named.name == "broken" and named.supported_interfaces[0].url == f"{wires_url}/a2a/broken"


async def test_an_unknown_agents_card_is_a_404(wires_url: str) -> None:
    r = httpx.get(f"{wires_url}/a2a/nobody/.well-known/agent-card.json")
    assert r.status_code == 404


# --------------------------------------------------------------------------- send, get, list


async def test_a_blocking_send_returns_the_completed_task_with_tool_parts(wires_url: str) -> None:
    task = await send_task(wires_url, user("weather in Paris"))
    assert task.status.state == COMPLETED
    assert "Paris" in answer_text(task)
    assert task.context_id and task.id.startswith(task.context_id)
    media = [p.media_type for m in task.history for p in m.parts]
    assert "application/vnd.turnwire.tool-call+json" in media
    assert "application/vnd.turnwire.tool-result+json" in media
    again = await get_task(wires_url, task.id, history_length=1)
    assert again.status.state == COMPLETED and answer_text(again) == answer_text(task)
    assert len(again.history) == 1


async def test_a_streamed_send_opens_with_the_task_and_streams_artifact_chunks(wires_url: str) -> None:
    events = await send(wires_url, user("count to 5"), streaming=True)
    assert events[0].HasField("task") and events[0].task.status.state == a2a_pb2.TASK_STATE_SUBMITTED
    chunks = [e.artifact_update for e in events if e.HasField("artifact_update")]
    assert [c.artifact.parts[0].text for c in chunks] == ["1", "2", "3", "4", "5"]
    assert all(c.last_chunk for c in chunks)
    assert events[-1].status_update.status.state == COMPLETED
    task = await get_task(wires_url, events[0].task.id)
    assert answer_text(task) == "12345"


async def test_a_word_by_word_answer_appends_chunks_to_one_artifact(wires_url: str) -> None:
    events = await send(wires_url, user("hello there friend"), streaming=True)
    chunks = [e.artifact_update for e in events if e.HasField("artifact_update")]
    assert len({c.artifact.artifact_id for c in chunks}) == 1
    assert [c.append for c in chunks] == [False] + [True] * (len(chunks) - 1)
    assert [c.last_chunk for c in chunks] == [False] * (len(chunks) - 1) + [True]
    assert "".join(c.artifact.parts[0].text for c in chunks) == "You said: hello there friend"


async def test_the_turn_with_every_new_event_streams_what_a2a_can_hold(wires_url: str) -> None:
    """``sources for``: sub-agent, steps, state, streamed arguments, progress, sources and a custom
    event have no A2A part (docs/a2a.md); the SDK parses every event of the stream, which holds
    the call with its whole input, its result and the answer."""
    events = await send(wires_url, user("sources for tides"), streaming=True)
    assert events[-1].status_update.status.state == COMPLETED
    chunks = [e.artifact_update for e in events if e.HasField("artifact_update")]
    assert "".join(c.artifact.parts[0].text for c in chunks) == "Here are 2 sources for tides."
    task = await get_task(wires_url, events[0].task.id)
    parts = [p for m in task.history for p in m.parts]
    calls = [data_of(p) for p in parts if p.media_type == "application/vnd.turnwire.tool-call+json"]
    assert [(c["toolName"], c["input"]) for c in calls] == [("search", {"query": "tides"})]
    assert [p.media_type for p in parts].count("application/vnd.turnwire.tool-result+json") == 1
    assert not [p for p in parts if p.url], "a source became a part"


async def test_a_context_continues_and_reads_on_another_door(wires_url: str) -> None:
    context = f"a2a-{uuid.uuid4().hex[:8]}"
    first = await send_task(wires_url, user("weather in Rome", context=context))
    second = await send_task(wires_url, user("count to 2", context=context))
    assert first.context_id == second.context_id == context and first.id != second.id
    r = httpx.get(f"{wires_url}/tasks/name/{context}/messages", params={"format": "vercel"})
    texts = [p.get("text") for m in r.json()["messages"] for p in m["parts"] if p["type"] == "text"]
    assert "weather in Rome" in texts and "count to 2" in texts
    client, http = await client_for(wires_url, streaming=False)
    try:
        listed = await client.list_tasks(a2a_pb2.ListTasksRequest(context_id=context))
    finally:
        await http.aclose()
    assert [t.id for t in listed.tasks] == [second.id, first.id]


# --------------------------------------------------------------------------- cancel, subscribe


async def _first_chunk(events: AsyncIterator[a2a_pb2.StreamResponse]) -> tuple[str, list[Any]]:
    seen = []
    async for event in events:
        seen.append(event)
        if event.HasField("artifact_update"):
            return event.artifact_update.task_id, seen
    raise AssertionError("no chunk")


async def test_cancel_stops_a_running_count_and_keeps_the_partial_reply(wires_url: str) -> None:
    client, http = await client_for(wires_url, streaming=True)
    try:
        stream = client.send_message(a2a_pb2.SendMessageRequest(message=user("count to 50")))
        task_id, _seen = await _first_chunk(stream)
        canceled = await client.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
        assert canceled.status.state == CANCELED
        rest = [e async for e in stream]
    finally:
        await http.aclose()
    assert rest[-1].status_update.status.state == CANCELED
    stored = await get_task(wires_url, task_id)
    assert stored.status.state == CANCELED
    assert 1 <= len(stored.artifacts) < 50
    with pytest.raises(TaskNotCancelableError):
        client, http = await client_for(wires_url, streaming=False)
        try:
            await client.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
        finally:
            await http.aclose()


async def test_a_second_client_subscribes_to_a_running_task(wires_url: str) -> None:
    client, http = await client_for(wires_url, streaming=True)
    other, other_http = await client_for(wires_url, streaming=True)
    try:
        stream = client.send_message(a2a_pb2.SendMessageRequest(message=user("count to 8")))
        task_id, _ = await _first_chunk(stream)
        follow = other.subscribe(a2a_pb2.SubscribeToTaskRequest(id=task_id))
        subscribed, _rest = await asyncio.gather(_collect(follow), _collect(stream))
    finally:
        await http.aclose()
        await other_http.aclose()
    chunks = [e.artifact_update.artifact.parts[0].text for e in subscribed if e.HasField("artifact_update")]
    assert chunks == [str(n) for n in range(1, 9)]  # from the turn's first event, then live
    assert subscribed[-1].status_update.status.state == COMPLETED


async def _collect(events: AsyncIterator[a2a_pb2.StreamResponse]) -> list[a2a_pb2.StreamResponse]:
    return [e async for e in events]


async def test_subscribing_to_a_finished_task_is_unsupported(wires_url: str) -> None:
    task = await send_task(wires_url, user("hi"))
    client, http = await client_for(wires_url, streaming=True)
    try:
        with pytest.raises(UnsupportedOperationError):
            _ = [e async for e in client.subscribe(a2a_pb2.SubscribeToTaskRequest(id=task.id))]
    finally:
        await http.aclose()


# --------------------------------------------------------------------------- approvals and questions


def _request_of(task: a2a_pb2.Task) -> dict[str, Any]:
    assert task.status.state == INPUT_REQUIRED
    (part,) = task.status.message.parts
    assert part.media_type == "application/vnd.turnwire.interaction-request+json"
    return data_of(part)


async def test_an_approval_round_trip_runs_the_tool_once(wires_url: str) -> None:
    paused = await send_task(wires_url, user("delete x.txt"))
    request = _request_of(paused)
    assert request["kind"] == "user_approval" and request["toolName"] == "delete_file"
    assert request["input"] == {"path": "x.txt"} and request["interactionToken"].startswith("ap_")
    answer = {"approved": True, "interactionToken": request["interactionToken"]}
    done = await send_task(wires_url, user(task=paused.id, context=paused.context_id, data=answer))
    assert done.id == paused.id and done.status.state == COMPLETED
    assert answer_text(done) == "Deleted x.txt."
    # Replayed, or flipped: the task is over; nothing runs again.
    for replay in (answer, {**answer, "approved": False}):
        with pytest.raises(UnsupportedOperationError):
            await send_task(wires_url, user(task=paused.id, data=replay))
    stored = await get_task(wires_url, paused.id)
    results = [
        d
        for m in stored.history
        for p in m.parts
        if "output" in (d := data_of(p) if p.HasField("data") else {})
    ]
    assert [r["output"] for r in results if r.get("toolName") == "delete_file"] == [
        {"path": "x.txt", "deleted": True}
    ]


async def test_a_denial_completes_without_running_the_tool(wires_url: str) -> None:
    paused = await send_task(wires_url, user("delete y.txt"))
    token = _request_of(paused)["interactionToken"]
    done = await send_task(
        wires_url, user(task=paused.id, data={"approved": False, "interactionToken": token})
    )
    assert done.status.state == COMPLETED and answer_text(done) == "I did not delete y.txt."


async def test_forged_and_foreign_tokens_are_refused_and_the_tool_never_runs(wires_url: str) -> None:
    paused = await send_task(wires_url, user("delete z.txt"))
    other = await send_task(wires_url, user("delete z.txt"))  # another session, the same call id
    foreign = _request_of(other)["interactionToken"]
    for data in (
        {"approved": True, "interactionToken": "ap_forged"},  # names no approval of this task
        {"approved": True, "interactionToken": "ap_forged", "toolCallId": "call_1"},  # signature wrong
        {"approved": True, "interactionToken": foreign, "toolCallId": "call_1"},  # another session's
        {"approved": True},  # no token at all
    ):
        with pytest.raises(InvalidParamsError):
            await send_task(wires_url, user(task=paused.id, data=data))
    stored = await get_task(wires_url, paused.id)
    assert stored.status.state == INPUT_REQUIRED
    assert not any("Deleted" in p.text for m in stored.history for p in m.parts)


async def test_a_question_round_trip(wires_url: str) -> None:
    paused = await send_task(wires_url, user("ask me"))
    request = _request_of(paused)
    assert request["kind"] == "user_input" and request["prompt"] == "What should I echo?"
    done = await send_task(wires_url, user("pineapple", task=paused.id))
    assert done.status.state == COMPLETED
    # The task's answer: the question it asked, then the echo (artifacts counted over the task).
    assert [a.parts[0].text for a in done.artifacts] == ["What should I echo?", "You answered: pineapple"]
    assert [a.artifact_id for a in done.artifacts] == ["text-1", "text-2"]


# --------------------------------------------------------------------------- errors


async def test_an_unknown_task_is_task_not_found(wires_url: str) -> None:
    with pytest.raises(TaskNotFoundError):
        await get_task(wires_url, "nosuchsession~abc")
    with pytest.raises(TaskNotFoundError):
        await get_task(wires_url, "not a task id")


def rpc(url: str, body: Any, **kw: Any) -> dict[str, Any]:
    r = (
        httpx.post(f"{url}/a2a", json=body, timeout=20, **kw)
        if not isinstance(body, bytes)
        else httpx.post(f"{url}/a2a", content=body, headers={"content-type": "application/json"}, timeout=20)
    )
    assert r.status_code == 200, r.text  # JSON-RPC errors travel in a 200 answer
    return r.json()


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        (b"{not json", -32700, None),
        ([1, 2], -32600, None),
        ({"jsonrpc": "1.0", "id": 1, "method": "GetTask"}, -32600, "jsonrpc"),
        ({"jsonrpc": "2.0", "id": 1, "method": "NoSuchMethod"}, -32601, None),
        ({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": []}, -32602, "params"),
        ({"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {}}, -32602, "params.message"),
        (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {"message": {"role": "ROLE_USER", "parts": [{}]}},
            },
            -32602,
            "params.message.parts[0]",
        ),
        (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {"message": {"role": "X", "parts": [{"text": "a"}]}},
            },
            -32602,
            "params.message.role",
        ),
        (
            {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "s~k", "historyLength": -1}},
            -32602,
            "params.historyLength",
        ),
        (
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "SendMessage",
                "params": {
                    "message": {"role": "ROLE_USER", "parts": [{"text": "a"}]},
                    "configuration": {"acceptedOutputModes": ["video/mp4"]},
                },
            },
            -32005,
            "params.configuration.acceptedOutputModes",
        ),
        (
            {"jsonrpc": "2.0", "id": 1, "method": "CreateTaskPushNotificationConfig", "params": {}},
            -32003,
            None,
        ),
    ],
)
def test_bad_requests_are_a2a_errors_naming_the_field(
    wires_url: str, body: Any, code: int, field: str | None
) -> None:
    answer = rpc(wires_url, body)
    assert answer["error"]["code"] == code, answer
    if field is not None:
        assert answer["error"]["data"]["field"] == field


def test_v03_method_names_answer_in_v03_shapes(wires_url: str) -> None:
    message = {
        "kind": "message",
        "messageId": "m1",
        "role": "user",
        "parts": [{"kind": "text", "text": "count to 2"}],
    }
    sent = rpc(
        wires_url, {"jsonrpc": "2.0", "id": "a", "method": "message/send", "params": {"message": message}}
    )
    task = sent["result"]
    assert task["kind"] == "task" and task["status"]["state"] == "completed"
    assert [a["parts"][0] for a in task["artifacts"]] == [
        {"kind": "text", "text": "1"},
        {"kind": "text", "text": "2"},
    ]
    got = rpc(wires_url, {"jsonrpc": "2.0", "id": "b", "method": "tasks/get", "params": {"id": task["id"]}})
    assert got["id"] == "b" and got["result"]["status"]["state"] == "completed"
    with httpx.stream(
        "POST",
        f"{wires_url}/a2a",
        json={
            "jsonrpc": "2.0",
            "id": 7,
            "method": "message/stream",
            "params": {"message": {**message, "messageId": "m2"}},
        },
    ) as r:
        import orjson

        events = [orjson.loads(line[6:]) for line in r.iter_lines() if line.startswith("data: ")]
    assert {e["id"] for e in events} == {7}
    kinds = [e["result"]["kind"] for e in events]
    assert kinds[0] == "task" and kinds[-1] == "status-update" and "artifact-update" in kinds
    assert events[-1]["result"]["final"] is True


async def test_with_api_keys_the_card_names_bearer_and_the_client_sends_its_key(tmp_path: Any) -> None:
    from services import serve_app
    from turnwire.agents import builtin_agents
    from turnwire.server import Settings, create_app

    key = "k-" + "a" * 30
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{tmp_path / 'keys.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        api_keys=f"alice:{key}",
    )
    with serve_app(create_app(builtin_agents(), settings=settings), lifespan="on") as url:
        assert httpx.get(f"{url}/.well-known/agent-card.json").status_code == 401
        http = httpx.AsyncClient(timeout=30, headers={"authorization": f"Bearer {key}"})
        try:
            card = await A2ACardResolver(http, url).get_agent_card()
            scheme = card.security_schemes["bearer"].http_auth_security_scheme
            assert scheme.scheme.lower() == "bearer"
            assert "bearer" in card.security_requirements[0].schemes
            client = await create_client(card, ClientConfig(streaming=False, httpx_client=http))
            (event,) = [e async for e in client.send_message(a2a_pb2.SendMessageRequest(message=user("hi")))]
            assert event.task.status.state == COMPLETED
        finally:
            await http.aclose()


async def test_the_sdks_v03_transport_sends_gets_and_streams(wires_url: str) -> None:
    """The a2a-sdk client speaking v0.3 (its compat transport, picked for a 0.3 interface): the
    v0.3 method names on the same endpoint, answered in v0.3 shapes it converts back."""
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, wires_url).get_agent_card()
        card.supported_interfaces[0].protocol_version = "0.3"
        blocking = await create_client(card, ClientConfig(streaming=False, httpx_client=http))
        assert type(blocking._transport).__name__ == "CompatJsonRpcTransport"  # the v0.3 wire
        (event,) = [
            e async for e in blocking.send_message(a2a_pb2.SendMessageRequest(message=user("count to 3")))
        ]
        assert event.task.status.state == COMPLETED
        assert answer_text(event.task) == "123"
        again = await blocking.get_task(a2a_pb2.GetTaskRequest(id=event.task.id))
        assert again.status.state == COMPLETED and answer_text(again) == "123"
        streaming = await create_client(card, ClientConfig(streaming=True, httpx_client=http))
        events = [
            e
            async for e in streaming.send_message(a2a_pb2.SendMessageRequest(message=user("weather in Oslo")))
        ]
    assert events[-1].status_update.status.state == COMPLETED
    chunks = [e.artifact_update.artifact.parts[0].text for e in events if e.HasField("artifact_update")]
    assert "".join(chunks) == "It is sunny and 21 °C in Oslo."
    # v0.3 data parts have no media type: it travels in the part's metadata, as docs/a2a.md says.
    calls = [
        json_format.MessageToDict(p).get("metadata", {}).get("mediaType")
        for e in events
        if e.HasField("status_update")
        for p in e.status_update.status.message.parts
    ]
    assert "application/vnd.turnwire.tool-call+json" in calls


# --------------------------------------------------------------------------- the HTTP+JSON binding


async def rest_client(url: str, *, streaming: bool) -> tuple[Any, httpx.AsyncClient]:
    http = httpx.AsyncClient(timeout=30)
    config = ClientConfig(streaming=streaming, httpx_client=http, supported_protocol_bindings=["HTTP+JSON"])
    client = await create_client(url, config)
    assert type(client._transport).__name__ == "RestTransport"
    return client, http


async def test_the_http_json_binding_sends_streams_gets_lists_and_cancels(wires_url: str) -> None:
    context = f"rest-{uuid.uuid4().hex[:8]}"
    client, http = await rest_client(wires_url, streaming=False)
    streaming, _ = await rest_client(wires_url, streaming=True)
    try:
        (sent,) = [
            e
            async for e in client.send_message(
                a2a_pb2.SendMessageRequest(message=user("weather in Lima", context=context))
            )
        ]
        assert sent.task.status.state == COMPLETED and "Lima" in answer_text(sent.task)
        got = await client.get_task(a2a_pb2.GetTaskRequest(id=sent.task.id, history_length=1))
        assert got.id == sent.task.id and len(got.history) == 1
        events = [
            e
            async for e in streaming.send_message(
                a2a_pb2.SendMessageRequest(message=user("count to 3", context=context))
            )
        ]
        assert events[0].HasField("task") and events[-1].status_update.status.state == COMPLETED
        listed = await client.list_tasks(a2a_pb2.ListTasksRequest(context_id=context))
        assert [t.id for t in listed.tasks] == [events[0].task.id, sent.task.id]
        stream = streaming.send_message(a2a_pb2.SendMessageRequest(message=user("count to 50")))
        task_id, _ = await _first_chunk(stream)
        canceled = await client.cancel_task(a2a_pb2.CancelTaskRequest(id=task_id))
        assert canceled.status.state == CANCELED
        _ = [e async for e in stream]
        with pytest.raises(TaskNotFoundError):
            await client.get_task(a2a_pb2.GetTaskRequest(id="nobody~abc"))
        with pytest.raises(TaskNotCancelableError):
            await client.cancel_task(a2a_pb2.CancelTaskRequest(id=sent.task.id))
    finally:
        await http.aclose()


def test_http_json_errors_have_the_google_rpc_shape_and_a_4xx(wires_url: str) -> None:
    r = httpx.post(
        f"{wires_url}/a2a/demo/http/message:send", json={"message": {"role": "ROLE_USER", "parts": [{}]}}
    )
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["status"] == "INVALID_ARGUMENT"
    assert error["details"][0]["reason"] == "INVALID_PARAMS"
    assert error["details"][0]["metadata"]["field"] == "params.message.parts[0]"
    missing = httpx.get(f"{wires_url}/a2a/demo/http/tasks/nobody~abc")
    assert missing.status_code == 404 and missing.json()["error"]["details"][0]["reason"] == "TASK_NOT_FOUND"
    assert (
        httpx.post(
            f"{wires_url}/a2a/demo/http/message:send",
            content=b"{x",
            headers={"content-type": "application/json"},
        ).status_code
        == 400
    )
    assert httpx.get(f"{wires_url}/a2a/nobody/http/tasks/a~b").status_code == 404
    assert httpx.get(f"{wires_url}/a2a/demo/http/tasks", params={"pageSize": "x"}).status_code == 400


async def test_return_immediately_answers_the_submitted_task_and_the_turn_runs_on(wires_url: str) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "SendMessage",
        "params": {
            "message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "count to 3"}]},
            "configuration": {"returnImmediately": True},
        },
    }
    task = httpx.post(f"{wires_url}/a2a", json=body, timeout=20).json()["result"]["task"]
    assert task["status"]["state"] == "TASK_STATE_SUBMITTED"
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        stored = await get_task(wires_url, task["id"])
        if stored.status.state == COMPLETED or asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.05)
    assert stored.status.state == COMPLETED and answer_text(stored) == "123"
