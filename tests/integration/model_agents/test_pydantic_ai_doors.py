"""A pydantic-ai agent (scripted ``FunctionModel``) behind the front doors: the tool round in each
format, the turn stored, and deferred approvals approved and denied in all four client flows, warm
and cold giving the same resumed turn."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import orjson
import pytest
from approvals_flows import FLOWS, Reply
from approvals_wire import normalize, sse_data
from model_doors import Doors, decide

from model_tools import DELETED
from pydantic_models import DELETE_CALL, MIXED, MIXED_DELETE, WEATHER_CALL

WEATHER = {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
WEATHER_TEXT = '{"city":"Paris","condition":"Sunny","temperature_c":21}'


def sid(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_agenta_batch_and_frames_carry_the_tool_round(pyd_warm: Doors) -> None:
    body = {
        "session_id": sid("pb"),
        "data": {"inputs": {"messages": [{"role": "user", "content": "weather in Paris"}]}},
    }
    batch = httpx.post(pyd_warm.url + "/invoke", json=body, timeout=20).json()
    assert batch["data"]["outputs"]["messages"] == [
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
    ]
    assert batch["data"]["outputs"]["stop_reason"] == "end_turn"

    body["session_id"] = sid("ps")
    response = httpx.post(
        pyd_warm.url + "/invoke",
        content=orjson.dumps(body),
        headers={"accept": "text/event-stream", "content-type": "application/json"},
        timeout=20,
    )
    frames = sse_data(response.content)
    # The call's argument pieces as the model streamed them (issue 30), then the turn as before.
    pieces = [f["data"] for f in frames if f["type"] == "tool_call_delta"]
    assert frames[: len(pieces)] == [{"type": "tool_call_delta", "data": p} for p in pieces]
    assert pieces[0]["name"] == "get_weather" and orjson.loads("".join(p["delta"] for p in pieces)) == {
        "city": "Paris"
    }
    frames = frames[len(pieces) :]
    assert [f["type"] for f in frames] == [
        "tool_call", "tool_result", "message_start", "message_delta", "message_delta", "message_delta",
        "message_end", "usage", "done",
    ]  # fmt: skip
    assert frames[1]["data"] == {
        "id": WEATHER_CALL,
        "output": WEATHER_TEXT,
        "data": WEATHER,
        "name": "get_weather",
    }
    stored = httpx.get(f"{pyd_warm.url}/tasks/{response.headers['x-ag-task-id']}/messages", timeout=20).json()
    assert [(m["content"]["type"], m["content"]["author"]) for m in stored["messages"]] == [
        ("text", "user"),
        ("tool_request", "agent"),
        ("tool_response", "agent"),
        ("text", "agent"),
    ]
    assert stored["messages"][-1]["content"]["content"] == "It is sunny and 21 °C in Paris."


def test_agentex_message_send_runs_the_pydantic_ai_agent(pyd_warm: Doors) -> None:
    with httpx.Client(base_url=pyd_warm.url, timeout=20) as client:
        rpc = "/agents/name/pydantic/rpc"
        created = client.post(rpc, json={"method": "task/create", "params": {"name": sid("px")}}).json()
        task_id = created["result"]["id"]
        content = {"type": "text", "author": "user", "content": "weather in Paris"}
        sent = client.post(
            rpc,
            json={
                "method": "message/send",
                "params": {"task_id": task_id, "content": content, "stream": False},
            },
        ).json()
        assert sent["error"] is None
        assert [m["content"]["type"] for m in sent["result"]] == ["tool_request", "tool_response", "text"]
        stored = client.get(f"/tasks/{task_id}/messages").json()["messages"]
        assert [m["content"] for m in stored[1:]] == [m["content"] for m in sent["result"]]


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
def test_a_deferred_approval_round_trip_resumes_warm_and_cold_to_the_same_turn(
    flow: Any, scenario: str, pyd_warm: Doors, pyd_cold: Doors
) -> None:
    prompt, answers, text, outcomes, deleted = SCENARIOS[scenario]
    views = []
    for doors in (pyd_warm, pyd_cold):
        session = sid(flow.name)
        DELETED.clear()
        paused: Reply = flow.first(doors.url, session, prompt)
        assert paused.status == 200, paused.body
        assert paused.stop == PAUSED[flow.name]
        assert list(paused.gates) == list(answers)
        assert DELETED == []
        resumed: Reply = decide(flow, doors.url, session, paused, answers)
        assert resumed.status == 200, resumed.body
        assert resumed.stop == DONE[flow.name]
        assert resumed.text == text
        assert resumed.outcomes == outcomes
        assert deleted == DELETED
        views.append(normalize(resumed.body, *resumed.trace_ids, *paused.trace_ids, session))
    assert views[0] == views[1]


@pytest.mark.parametrize("flow", [f for f in FLOWS if f.name in ("vercel-sse", "chat")], ids=lambda f: f.name)
def test_a_deferred_external_tool_is_answered_by_the_client_warm_and_cold(
    flow: Any, pyd_warm: Doors, pyd_cold: Doors
) -> None:
    from approvals_wire import ui_assistant

    from pydantic_models import LOCATION_CALL

    views = []
    for doors in (pyd_warm, pyd_cold):
        session = sid(flow.name)
        paused: Reply = flow.first(doors.url, session, "where am I")
        assert paused.status == 200 and paused.stop == "other", paused.body
        available = [c for c in paused.body[:-1] if c["type"] == "tool-input-available"]
        # the call, then the request's refresh of it (as for approvals)
        assert {(c["toolCallId"], c["toolName"], orjson.dumps(c["input"])) for c in available} == {
            (LOCATION_CALL, "get_location", b"{}")
        }
        message = ui_assistant(paused.body)
        part = next(p for p in message["parts"] if p.get("toolCallId") == LOCATION_CALL)
        part.update(state="output-available", output="Lyon")  # what addToolOutput records
        resumed: Reply = flow.send(doors.url, session, [*paused.history, message])
        assert resumed.status == 200, resumed.body
        assert (resumed.stop, resumed.text) == ("stop", "You are in Lyon.")
        views.append(normalize(resumed.body, *resumed.trace_ids, *paused.trace_ids, session))
    assert views[0] == views[1]
