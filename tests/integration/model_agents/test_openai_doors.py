"""The OpenAI-compatible agent behind every front door: exact frames, stored history, approvals
round trips warm and cold, model errors and a client leaving mid-stream, on a real server whose
agent streams recorded Chat Completions responses through the real ``openai`` client."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
import orjson
import pytest
from approvals_flows import FLOWS, Reply
from approvals_wire import normalize, sse_data
from model_doors import Doors, decide

from model_tools import DELETED
from openai_fake import FakeOpenAI

WEATHER_CALL = "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F"
WEATHER = {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
WEATHER_TEXT = '{"city":"Paris","condition":"Sunny","temperature_c":21}'
DELETE_CALL = "call_D3l3t3N0t3sTxt0000000001"
SAID = ["It", " is", " sunny", " and", " 21", " °C", " in", " Paris", "."]
# The recorded stream's argument pieces for the call (tests/fixtures/openai_streams/weather.0.sse,
# after the piece that names it with empty arguments): the adapter passes each on as it comes.
ARGS = ['{"', "city", '":"', "Par", "is", '"}']


def sid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def invoke(url: str, session: str, text: str, headers: dict[str, str] | None = None) -> httpx.Response:
    body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    headers = {"content-type": "application/json", **(headers or {})}
    return httpx.post(url + "/invoke", content=orjson.dumps(body), headers=headers, timeout=20)


def test_agenta_batch_answers_with_the_tool_round_and_the_text(warm: Doors) -> None:
    response = invoke(warm.url, sid("batch"), "weather in Paris")
    assert response.status_code == 200
    assert response.json()["data"]["outputs"] == {
        "messages": [
            {
                "role": "tool",
                "content": "",
                "tool_call_id": WEATHER_CALL,
                "tool_name": "get_weather",
                "input": {"city": "Paris"},
            },
            {
                "role": "tool",
                "content": WEATHER,
                "tool_call_id": WEATHER_CALL,
                "is_error": None,
            },  # the one output rule: data
            {"role": "assistant", "content": "It is sunny and 21 °C in Paris."},
        ],
        "stop_reason": "end_turn",
    }


def test_agenta_frames_are_exact_and_the_turn_is_stored(warm: Doors) -> None:
    response = invoke(warm.url, sid("frames"), "weather in Paris", {"accept": "text/event-stream"})
    assert response.status_code == 200
    frames = sse_data(response.content)
    trace = frames[-1]["data"]["traceId"]
    assert frames == [
        {"type": "tool_call_delta", "data": {"id": WEATHER_CALL, "delta": "", "name": "get_weather"}},
        *({"type": "tool_call_delta", "data": {"id": WEATHER_CALL, "delta": d}} for d in ARGS),
        {
            "type": "tool_call",
            "data": {"id": WEATHER_CALL, "name": "get_weather", "input": {"city": "Paris"}},
        },
        {
            "type": "tool_result",
            "data": {"id": WEATHER_CALL, "output": WEATHER_TEXT, "data": WEATHER, "name": "get_weather"},
        },
        {"type": "message_start", "data": {"id": "msg_1_1"}},
        *({"type": "message_delta", "data": {"id": "msg_1_1", "delta": d}} for d in SAID),
        {"type": "message_end", "data": {"id": "msg_1_1"}},
        {"type": "usage", "data": {"input": 159, "output": 26, "total": 185}},
        {"type": "done", "data": {"stopReason": "end_turn", "traceId": trace}},
    ]
    stored = httpx.get(f"{warm.url}/tasks/{response.headers['x-ag-task-id']}/messages", timeout=20).json()
    assert [m["content"] for m in stored["messages"]] == [
        {
            "type": "text",
            "author": "user",
            "style": "static",
            "format": "plain",
            "content": "weather in Paris",
            "attachments": None,
        },
        {
            "type": "tool_request",
            "author": "agent",
            "style": "static",
            "tool_call_id": WEATHER_CALL,
            "name": "get_weather",
            "arguments": {"city": "Paris"},
        },
        {
            "type": "tool_response",
            "author": "agent",
            "style": "static",
            "tool_call_id": WEATHER_CALL,
            "name": "get_weather",
            "content": WEATHER,
            "is_error": None,
        },
        {
            "type": "text",
            "author": "agent",
            "style": "static",
            "format": "plain",
            "content": "It is sunny and 21 °C in Paris.",
            "attachments": None,
        },
    ]


def test_vercel_chat_stream_is_exact(warm: Doors) -> None:
    body = {
        "id": sid("chat"),
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "weather in Paris"}]}],
    }
    response = httpx.post(warm.url + "/chat", json=body, timeout=20)
    assert response.status_code == 200
    chunks = sse_data(response.content)
    start, finish = chunks[0], chunks[-2]
    assert chunks == [
        {"type": "start", "messageId": start["messageId"], "messageMetadata": {"sessionId": body["id"]}},
        {"type": "start-step"},
        {"type": "tool-input-start", "toolCallId": WEATHER_CALL, "toolName": "get_weather"},
        *({"type": "tool-input-delta", "toolCallId": WEATHER_CALL, "inputTextDelta": d} for d in ARGS),
        {
            "type": "tool-input-available",
            "toolCallId": WEATHER_CALL,
            "toolName": "get_weather",
            "input": {"city": "Paris"},
        },
        {"type": "tool-output-available", "toolCallId": WEATHER_CALL, "output": WEATHER},
        {"type": "finish-step"},
        {"type": "start-step"},
        {"type": "text-start", "id": "msg_1_1"},
        *({"type": "text-delta", "id": "msg_1_1", "delta": d} for d in SAID),
        {"type": "text-end", "id": "msg_1_1"},
        {"type": "finish-step"},
        {
            "type": "finish",
            "finishReason": "stop",
            "messageMetadata": {
                "usage": {"input": 159, "output": 26, "total": 185},
                "traceId": finish["messageMetadata"]["traceId"],
            },
        },
        "[DONE]",
    ]


def _rpc(client: httpx.Client, method: str, params: dict[str, Any]) -> Any:
    response = client.post("/agents/name/model/rpc", json={"method": method, "params": params})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["error"] is None, body
    return body["result"]


def test_agentex_message_send_runs_the_model_and_stores_the_turn(warm: Doors) -> None:
    with httpx.Client(base_url=warm.url, timeout=20) as client:
        task_id = _rpc(client, "task/create", {"name": sid("agentex")})["id"]
        content = {"type": "text", "author": "user", "content": "weather in Paris"}
        result = _rpc(client, "message/send", {"task_id": task_id, "content": content, "stream": False})
        sent = [m["content"] for m in result]
        assert [c["type"] for c in sent] == ["tool_request", "tool_response", "text"]
        assert sent[0]["arguments"] == {"city": "Paris"} and sent[0]["tool_call_id"] == WEATHER_CALL
        assert sent[1]["content"] == WEATHER
        assert sent[2]["content"] == "It is sunny and 21 °C in Paris."
        stored = client.get(f"/tasks/{task_id}/messages").json()["messages"]
        assert [(m["content"]["type"], m["content"]["author"]) for m in stored] == [
            ("text", "user"),
            ("tool_request", "agent"),
            ("tool_response", "agent"),
            ("text", "agent"),
        ]
        assert [m["content"] for m in stored[1:]] == sent


MIXED_WEATHER = "call_W3ath3rMix000000000000001"
MIXED_DELETE = "call_D3l3t3Mix00000000000002"
MIXED = "weather in Paris and delete notes.txt"
SCENARIOS = {
    # prompt, answers, resumed text, resumed outcomes, files deleted
    "approve": (
        "delete notes.txt",
        {DELETE_CALL: True},
        "Deleted notes.txt.",
        {DELETE_CALL: "output"},
        ["notes.txt"],
    ),
    "deny": (
        "delete notes.txt",
        {DELETE_CALL: False},
        "I did not delete notes.txt.",
        {DELETE_CALL: "denied"},
        [],
    ),
    "mixed, approve": (
        MIXED,
        {MIXED_DELETE: True},
        "Sunny in Paris; deleted notes.txt.",
        {MIXED_DELETE: "output"},
        ["notes.txt"],
    ),
    "mixed, deny": (
        MIXED,
        {MIXED_DELETE: False},
        "Sunny in Paris; kept notes.txt.",
        {MIXED_DELETE: "denied"},
        [],
    ),
}
PAUSED = {"agenta-batch": "paused", "agenta-sse": "paused", "vercel-sse": "other", "chat": "other"}
DONE = {"agenta-batch": "end_turn", "agenta-sse": "end_turn", "vercel-sse": "stop", "chat": "stop"}


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.name)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_an_approval_round_trip_resumes_warm_and_cold_to_the_same_turn(
    flow: Any, scenario: str, warm: Doors, cold: Doors, fake: FakeOpenAI
) -> None:
    prompt, answers, text, outcomes, deleted = SCENARIOS[scenario]
    views = []
    for doors in (warm, cold):
        session = sid(flow.name)
        DELETED.clear()
        paused: Reply = flow.first(doors.url, session, prompt)
        assert paused.status == 200, paused.body
        assert paused.stop == PAUSED[flow.name]
        assert list(paused.gates) == list(answers)
        assert all(token.startswith("ap_") for token in paused.gates.values())
        assert DELETED == []
        calls = len(fake.requests)
        resumed: Reply = decide(flow, doors.url, session, paused, answers)
        assert resumed.status == 200, resumed.body
        assert resumed.stop == DONE[flow.name]
        assert resumed.text == text
        assert resumed.outcomes == outcomes
        assert deleted == DELETED
        assert len(fake.requests) == calls + 1, "the resumed turn asks the model once, with the outcome"
        told = fake.requests[-1]["messages"]
        assert [m["role"] for m in told].count("tool") == (2 if prompt == MIXED else 1)
        assert told[-1]["role"] == "tool" and told[-1]["tool_call_id"] in answers
        if paused.message_id is not None:
            assert resumed.message_id == paused.message_id
        views.append(normalize(resumed.body, *resumed.trace_ids, *paused.trace_ids, session))
    assert views[0] == views[1]


@pytest.mark.parametrize(
    ("prompt", "code", "message"),
    [
        ("rate limited", "model_rate_limited", "The model server answered 429: Rate limit reached"),
        ("unauthorized", "model_unauthorized", "The model server answered 401: Incorrect API key"),
        ("cut", "model_stream_incomplete", "The model stream ended before the model finished"),
    ],
)
def test_model_errors_end_the_stream_with_an_error_in_every_format(
    warm: Doors, prompt: str, code: str, message: str
) -> None:
    frames = sse_data(invoke(warm.url, sid("err"), prompt, {"accept": "text/event-stream"}).content)
    error = next(f["data"] for f in frames if f["type"] == "error")
    assert error["code"] == code and error["message"].startswith(message)
    assert frames[-1]["type"] == "done" and frames[-1]["data"]["stopReason"] == "error"

    body = {
        "id": sid("err"),
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": prompt}]}],
    }
    chunks = sse_data(httpx.post(warm.url + "/chat", json=body, timeout=20).content)
    assert chunks[-1] == "[DONE]" and chunks[-2]["type"] == "finish"
    assert chunks[-2]["finishReason"] == "error"
    errors = [c for c in chunks[:-1] if c["type"] == "error"]
    assert len(errors) == 1 and errors[0]["errorText"].startswith(message)


def test_a_client_leaving_mid_stream_closes_the_model_request(warm: Doors, fake: FakeOpenAI) -> None:
    body = {
        "session_id": sid("leave"),
        "data": {"inputs": {"messages": [{"role": "user", "content": "slow"}]}},
    }
    with httpx.Client(timeout=20) as client:
        request = client.build_request(
            "POST", warm.url + "/invoke", json=body, headers={"accept": "text/event-stream"}
        )
        response = client.send(request, stream=True)
        lines = response.iter_lines()  # kept: an abandoned line iterator would close the connection itself
        for line in lines:
            if '"delta":" slowly"' in line:
                break
        record = fake.disconnects[-1]
        assert record.scenario == "slow" and record.left is None, (
            "the model request ended before the client left"
        )
        left = time.monotonic()
        response.close()
    assert record.left_event.wait(5), "the model server never saw the request end"
    assert record.left is not None and record.left - left < 1.0


def test_a_chat_approval_round_trip_is_stored_as_one_assistant_message(warm: Doors) -> None:
    from approvals_flows import UseChat

    flow, session = UseChat(), sid("stored")
    paused = flow.first(warm.url, session, "delete notes.txt")
    resumed = decide(flow, warm.url, session, paused, {DELETE_CALL: True})
    assert resumed.text == "Deleted notes.txt."
    stored = httpx.get(f"{warm.url}/tasks/{session}/messages", params={"format": "vercel"}, timeout=20).json()
    messages = stored["messages"]
    assert [(m["role"], [p["type"] for p in m["parts"]]) for m in messages] == [
        ("user", ["text"]),
        # The steps the two turns' streams opened, as the chat client keeps them.
        ("assistant", ["step-start", "tool-delete_file", "step-start", "text"]),
    ]
    _, tool_part, _, text_part = messages[1]["parts"]
    assert tool_part == {
        "type": "tool-delete_file",
        "toolCallId": DELETE_CALL,
        "state": "output-available",
        "input": {"path": "notes.txt"},
        "approval": {"id": paused.gates[DELETE_CALL], "approved": True},
        "output": {"path": "notes.txt", "deleted": True},  # the tool's data: the one output rule
    }
    assert text_part == {"type": "text", "text": "Deleted notes.txt."}


def test_a_streamed_agentex_message_send_stores_the_same_turn(warm: Doors) -> None:
    with httpx.Client(base_url=warm.url, timeout=20) as client:
        task_id = _rpc(client, "task/create", {"name": sid("agentex-stream")})["id"]
        content = {"type": "text", "author": "user", "content": "weather in Paris"}
        body = {"method": "message/send", "params": {"task_id": task_id, "content": content, "stream": True}}
        response = client.post("/agents/name/model/rpc", json=body)
        assert response.status_code == 200
        lines = [orjson.loads(line) for line in response.text.splitlines()]
        assert lines and all(line["error"] is None for line in lines)
        deltas = "".join(
            line["result"]["delta"].get("text_delta") or ""
            for line in lines
            if line["result"].get("type") == "delta" and line["result"].get("delta")
        )
        assert deltas == "It is sunny and 21 °C in Paris."
        stored = client.get(f"/tasks/{task_id}/messages").json()["messages"]
        assert [m["content"]["type"] for m in stored] == ["text", "tool_request", "tool_response", "text"]
        assert stored[-1]["content"]["content"] == "It is sunny and 21 °C in Paris."
        assert stored[1]["content"]["arguments"] == {"city": "Paris"}
