"""The OpenAI Agents SDK and LangGraph adapters behind every door, on recorded model streams (the
SDK on the Responses API, LangGraph through ``ChatOpenAI`` on Chat Completions): the tool round on
``/invoke`` (batch and SSE), Agentex ``message/send`` with ``agentex-client``, ``/agui``,
``/v1/chat/completions`` and ``/v1/responses`` with the ``openai`` SDK, the A2A door; approvals
approved and denied on ``/invoke`` and ``/chat`` (Vercel flows), warm and cold giving the same
resumed turn."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import openai
import orjson
import pytest
from approvals_flows import FLOWS, Reply
from approvals_new_doors import AgUiRun
from approvals_wire import normalize, sse_data
from framework_doors import ADAPTERS, DELETE_CALL, WEATHER_CALL, Servers, run_servers
from model_doors import decide

from model_tools import DELETED
from openai_fake import FakeOpenAI

WEATHER = {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
SAID = "It is sunny and 21 °C in Paris."


@pytest.fixture(scope="module", params=ADAPTERS)
def servers(
    request: pytest.FixtureRequest, fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Servers]]:
    with run_servers(fake, tmp_path_factory.mktemp(f"framework-{request.param}"), request.param) as running:
        yield request.param, running


def sid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def invoke_body(session: str, text: str) -> dict[str, Any]:
    return {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}


def test_invoke_batch_carries_the_tool_round(servers: tuple[str, Servers]) -> None:
    _, running = servers
    batch = httpx.post(running.warm + "/invoke", json=invoke_body(sid("b"), "weather in Paris"), timeout=30)
    assert batch.status_code == 200, batch.text
    outputs = batch.json()["data"]["outputs"]
    messages = outputs["messages"]
    assert messages[0] == {
        "role": "tool",
        "content": "",
        "tool_call_id": WEATHER_CALL,
        "tool_name": "get_weather",
        "input": {"city": "Paris"},
    }
    assert messages[1]["tool_call_id"] == WEATHER_CALL and messages[1]["content"] == WEATHER
    assert messages[-1] == {"role": "assistant", "content": SAID}
    assert outputs["stop_reason"] == "end_turn"


def test_invoke_sse_streams_text_tools_and_usage_and_stores_the_turn(servers: tuple[str, Servers]) -> None:
    adapter, running = servers
    response = httpx.post(
        running.warm + "/invoke",
        content=orjson.dumps(invoke_body(sid("s"), "weather in Paris")),
        headers={"accept": "text/event-stream", "content-type": "application/json"},
        timeout=30,
    )
    frames = sse_data(response.content)
    kinds = [f["type"] for f in frames]
    assert kinds.index("tool_call") < kinds.index("tool_result") < kinds.index("message_start")
    assert "".join(f["data"]["delta"] for f in frames if f["type"] == "message_delta") == SAID
    usage = next(f["data"] for f in frames if f["type"] == "usage")
    # Both model calls of the turn (the call, then the answer), as the recordings count them.
    assert usage == {"input": 159, "output": 26, "total": 185}
    assert frames[-1]["data"]["stopReason"] == "end_turn"
    stored = httpx.get(f"{running.warm}/tasks/{response.headers['x-ag-task-id']}/messages", timeout=20).json()
    kept = [m["content"] for m in stored["messages"] if m["content"]["type"] != "data"]
    assert [(c["type"], c["author"]) for c in kept] == [
        ("text", "user"),
        ("tool_request", "agent"),
        ("tool_response", "agent"),
        ("text", "agent"),
    ]
    assert kept[-1]["content"] == SAID
    steps = [m["content"]["data"] for m in stored["messages"] if m["content"]["type"] == "data"]
    if adapter == "graph":  # each node that ran, as a (transient) step
        assert steps == [
            {"name": "langgraph_node", "value": {"node": n}} for n in ("model", "tools", "model")
        ]
    else:
        assert steps == []


def test_a_second_turn_replays_the_tool_history_to_the_model(
    servers: tuple[str, Servers], fake: FakeOpenAI
) -> None:
    _, running = servers
    session = sid("replay")
    first = httpx.post(running.warm + "/invoke", json=invoke_body(session, "weather in Paris"), timeout=30)
    history = [{"role": "user", "content": "weather in Paris"}, *first.json()["data"]["outputs"]["messages"]]
    body = {
        "session_id": session,
        "data": {"inputs": {"messages": [*history, {"role": "user", "content": "hello"}]}},
    }
    second = httpx.post(running.cold + "/invoke", json=body, timeout=30)
    assert second.status_code == 200, second.text
    assert second.json()["data"]["outputs"]["messages"][-1]["content"] == "Hello! How can I help you today?"
    sent = orjson.dumps(fake.requests[-1]).decode()
    assert WEATHER_CALL in sent and "Sunny" in sent  # the call and its result went back to the model


def test_agentex_message_send_with_the_agentex_client(servers: tuple[str, Servers]) -> None:
    from agentex import Agentex

    adapter, running = servers
    client = Agentex(base_url=running.warm, max_retries=0)
    task = client.agents.create_task(agent_name=adapter, params={"name": sid("ax")})
    assert task.result is not None
    out = client.agents.send_message(
        agent_name=adapter,
        params={
            "task_id": task.result.id,
            "content": {"type": "text", "author": "user", "content": "weather in Paris"},
        },
    )
    assert out.result is not None
    said = [m for m in out.result if m.content.type != "data"]  # LangGraph's node steps aside
    assert [m.content.type for m in said] == ["tool_request", "tool_response", "text"]
    assert said[-1].content.content == SAID  # type: ignore[union-attr]


def test_agui_run_streams_the_tool_round(servers: tuple[str, Servers]) -> None:
    _, running = servers
    reply = AgUiRun().first(running.warm, sid("agui"), "weather in Paris")
    assert reply.status == 200, reply.body
    assert reply.text == SAID
    assert reply.outcomes == {WEATHER_CALL: "output"}
    assert reply.body[-1]["type"] == "RUN_FINISHED"


def test_openai_chat_completions_with_the_openai_sdk(servers: tuple[str, Servers]) -> None:
    adapter, running = servers
    client = openai.OpenAI(base_url=running.warm + "/v1", api_key="unused", max_retries=0)
    done = client.chat.completions.create(
        model=adapter, messages=[{"role": "user", "content": "weather in Paris"}]
    )
    assert done.choices[0].message.content == SAID
    chunks = list(
        client.chat.completions.create(
            model=adapter, messages=[{"role": "user", "content": "weather in Paris"}], stream=True
        )
    )
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == SAID


def test_openai_responses_with_the_openai_sdk(servers: tuple[str, Servers]) -> None:
    adapter, running = servers
    client = openai.OpenAI(base_url=running.warm + "/v1", api_key="unused", max_retries=0)
    done = client.responses.create(model=adapter, input="weather in Paris")
    assert done.status == "completed" and done.output_text == SAID
    (call,) = [item for item in done.output if item.type == "mcp_call"]
    assert call.name == "get_weather" and orjson.loads(call.arguments) == {"city": "Paris"}
    assert orjson.loads(call.output or "") == WEATHER
    with client.responses.stream(model=adapter, input="weather in Paris") as stream:
        deltas = [e.delta for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    assert "".join(deltas) == SAID == final.output_text


def test_a2a_send_message_streams_the_tool_round(servers: tuple[str, Servers]) -> None:
    adapter, running = servers
    message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": "weather in Paris"}]}
    body = {"jsonrpc": "2.0", "id": 1, "method": "SendStreamingMessage", "params": {"message": message}}
    with httpx.stream(
        "POST", f"{running.warm}/a2a/{adapter}", json=body, headers={"A2A-Version": "1.0"}, timeout=30
    ) as r:
        assert r.status_code == 200
        events = [orjson.loads(line[6:])["result"] for line in r.iter_lines() if line.startswith("data: ")]
    texts = [e["artifactUpdate"]["artifact"]["parts"][0]["text"] for e in events if "artifactUpdate" in e]
    assert "".join(texts) == SAID
    tool_parts = [
        part["data"]
        for e in events
        if "statusUpdate" in e and e["statusUpdate"]["status"].get("message")
        for part in e["statusUpdate"]["status"]["message"]["parts"]
        if str(part.get("mediaType", "")).startswith("application/vnd.turnwire.tool-")
    ]
    assert [(p["toolCallId"], p["toolName"]) for p in tool_parts] == [(WEATHER_CALL, "get_weather")] * 2
    assert tool_parts[1]["output"] == WEATHER
    assert events[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


SCENARIOS = {
    "approve": (True, "Deleted notes.txt.", ["notes.txt"]),
    "deny": (False, "I did not delete notes.txt.", []),
}
PAUSED = {"agenta-batch": "paused", "agenta-sse": "paused", "vercel-sse": "other", "chat": "other"}
DONE = {"agenta-batch": "end_turn", "agenta-sse": "end_turn", "vercel-sse": "stop", "chat": "stop"}


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.name)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_an_approval_round_trip_resumes_warm_and_cold_to_the_same_turn(
    flow: Any, scenario: str, servers: tuple[str, Servers]
) -> None:
    _, running = servers
    approved, text, deleted = SCENARIOS[scenario]
    views = []
    for url in (running.warm, running.cold):
        session = sid(flow.name)
        DELETED.clear()
        paused: Reply = flow.first(url, session, "delete notes.txt")
        assert paused.status == 200, paused.body
        assert paused.stop == PAUSED[flow.name]
        assert list(paused.gates) == [DELETE_CALL]
        assert DELETED == []
        resumed: Reply = decide(flow, url, session, paused, {DELETE_CALL: approved})
        assert resumed.status == 200, resumed.body
        assert resumed.stop == DONE[flow.name]
        assert resumed.text == text
        assert resumed.outcomes == {DELETE_CALL: "output" if approved else "denied"}
        assert deleted == DELETED
        views.append(normalize(resumed.body, *resumed.trace_ids, *paused.trace_ids, session))
    assert views[0] == views[1]


def test_invoke_ndjson_streams_the_same_frames(servers: tuple[str, Servers]) -> None:
    _, running = servers
    response = httpx.post(
        running.warm + "/invoke",
        content=orjson.dumps(invoke_body(sid("nd"), "weather in Paris")),
        headers={"accept": "application/x-ndjson", "content-type": "application/json"},
        timeout=30,
    )
    assert response.headers["content-type"].startswith("application/x-ndjson")
    frames = [orjson.loads(line) for line in response.content.splitlines() if line.strip()]
    assert "".join(f["data"]["delta"] for f in frames if f["type"] == "message_delta") == SAID
    assert frames[-1]["type"] == "done" and frames[-1]["data"]["stopReason"] == "end_turn"


@pytest.mark.parametrize("door", ["agentex", "agui"])
@pytest.mark.parametrize("approved", [True, False], ids=["approve", "deny"])
def test_an_approval_round_trip_on_the_agentex_and_agui_doors(
    servers: tuple[str, Servers], door: str, approved: bool
) -> None:
    from test_model_new_doors import NamedAgentexSend

    adapter, running = servers
    client = NamedAgentexSend(adapter) if door == "agentex" else AgUiRun()
    session = sid(f"{door}-{adapter}")
    DELETED.clear()
    paused: Reply = client.first(running.warm, session, "delete notes.txt")
    assert paused.status == 200, paused.body
    assert list(paused.gates) == [DELETE_CALL] and paused.gates[DELETE_CALL].startswith("ap_")
    assert DELETED == []
    resumed: Reply = client.decide(running.warm, session, paused, {DELETE_CALL: approved})
    assert resumed.status == 200, resumed.body
    assert resumed.text == SCENARIOS["approve" if approved else "deny"][1]
    assert list(resumed.outcomes) == [DELETE_CALL]
    assert (["notes.txt"] if approved else []) == DELETED


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.name)
def test_a_langgraph_question_is_asked_and_answered_on_invoke_and_chat(
    flow: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from langgraph_graphs import question_graph
    from services import serve_app
    from turnwire.agents import langgraph_agent
    from turnwire.server import Settings, create_app

    home = tmp_path_factory.mktemp("question")
    settings = Settings(
        db_url=f"sqlite:///{home / 'store.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
    )
    app = create_app({"ask": langgraph_agent(question_graph())}, default_agent="ask", settings=settings)
    with serve_app(app) as url:
        session = sid(f"question-{flow.name}")
        asked: Reply = flow.first(url, session, "pick a city")
        assert asked.status == 200, asked.body
        assert asked.stop in ("paused", "other")
        assert "Which city?" in orjson.dumps(asked.body).decode()
        answered: Reply = flow.answer(url, session, asked, "Lyon")
        assert answered.status == 200, answered.body
        assert answered.text == "You chose Lyon."
