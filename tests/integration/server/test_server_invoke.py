"""POST /invoke over real HTTP: envelope, headers, both formats, batch and streams, session ids."""

from __future__ import annotations

import re

import httpx
import pytest
from live_server import ECHOED
from server_wire import invoke_body, ndjson_lines, sse_events

from turnwire.fold import fold
from turnwire.formats.agenta import decode_frames, render_outputs

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"


def test_batch_envelope_and_headers(client: httpx.Client) -> None:
    r = client.post("/invoke", json=invoke_body(session_id="s-1"))
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    assert body["version"] == "2025.07.14" == r.headers["x-ag-version"]
    assert body["status"] == {"code": 200, "message": "Success"}
    assert body["session_id"] == "s-1" == r.headers["x-ag-session-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", body["trace_id"])
    assert r.headers["x-ag-trace-id"] == body["trace_id"]
    outputs = body["data"]["outputs"]
    assert outputs["stop_reason"] == "end_turn"
    assert outputs["messages"] == [
        {"role": "assistant", "content": "you said: hi"},
        {
            "role": "tool",
            "content": "",
            "tool_call_id": "call_1",
            "tool_name": "lookup",
            "input": {"q": "hi"},
        },
        {"role": "tool", "content": "found", "tool_call_id": "call_1", "is_error": False},
        {"role": "assistant", "content": "done ✓"},
    ]
    assert "pending_interaction" not in outputs


def test_each_response_gets_a_fresh_trace_id(client: httpx.Client) -> None:
    ids = {client.post("/invoke", json=invoke_body()).json()["trace_id"] for _ in range(3)}
    assert len(ids) == 3


def test_named_agent_route_and_unknown_agent(client: httpx.Client) -> None:
    assert client.post("/agents/echo/invoke", json=invoke_body()).status_code == 200
    r = client.post("/agents/nope/invoke", json=invoke_body(), headers={"accept": SSE})
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/json"
    assert r.json() == {"detail": "Unknown agent: nope"}


def test_request_is_lenient_about_unknown_keys(client: httpx.Client) -> None:
    body = invoke_body(version="2025.07.14", flags={"stream": False, "x": 1}, meta={"a": 1})
    body["data"]["revision"] = {"id": "r"}
    body["data"]["inputs"]["other"] = True
    body["data"]["parameters"] = {"temperature": 0.1}
    r = client.post("/invoke", json=body)
    assert r.status_code == 200
    assert ECHOED[-1].parameters == {"temperature": 0.1}


@pytest.mark.parametrize("messages", [None, []])
def test_missing_or_null_messages_run_with_an_empty_history(client: httpx.Client, messages: object) -> None:
    for body in ({"data": {"inputs": {"messages": messages}}}, {"data": {"inputs": {}}}, {"data": {}}, {}):
        r = client.post("/invoke", json=body)
        assert r.status_code == 200, r.text
        assert ECHOED[-1].messages == []


# --------------------------------------------------------------------------- session ids


def test_session_id_comes_from_body_then_header_then_baggage_then_is_minted(client: httpx.Client) -> None:
    r = client.post("/invoke", json=invoke_body(session_id="body-id"), headers={"x-ag-session-id": "hdr"})
    assert r.json()["session_id"] == "body-id"
    assert ECHOED[-1].session_id == "body-id"
    r = client.post("/invoke", json=invoke_body(), headers={"x-ag-session-id": "hdr.1:a_b-c"})
    assert r.json()["session_id"] == "hdr.1:a_b-c" == r.headers["x-ag-session-id"]
    baggage = {"baggage": "other=1, ag.session.id=from%3Abaggage;prop=x"}
    r = client.post("/invoke", json=invoke_body(), headers=baggage)
    assert r.json()["session_id"] == "from:baggage"
    r = client.post("/invoke", json=invoke_body(), headers={**baggage, "x-ag-session-id": "hdr"})
    assert r.json()["session_id"] == "hdr"
    r = client.post("/invoke", json=invoke_body(), headers={"baggage": "ag.session.id=a%20b"})
    assert r.status_code == 400 and r.json()["detail"][0]["loc"] == ["header", "baggage"]
    r = client.post("/invoke", json=invoke_body(session_id=None), headers={"baggage": "x=1"})
    minted = r.json()["session_id"]
    assert re.fullmatch(r"[0-9a-f]{32}", minted) and minted == ECHOED[-1].session_id


@pytest.mark.parametrize("bad", ["a b", "", "x" * 129, "a/b", "é", "a\tb", "ab\n", 5, True, ["a"], {"a": 1}])
def test_invalid_session_id_in_body_is_400_naming_it(client: httpx.Client, bad: object) -> None:
    before = len(ECHOED)
    r = client.post("/invoke", json=invoke_body(session_id=bad), headers={"accept": SSE})
    assert r.status_code == 400
    assert r.headers["content-type"] == "application/json"
    (item,) = r.json()["detail"]
    assert item["loc"] == ["body", "session_id"] and item["type"] == "invalid_session_id"
    assert len(ECHOED) == before  # no turn ran


@pytest.mark.parametrize("bad", ["a b", "x" * 129, "a/b", "a,b"])
def test_invalid_session_id_in_header_is_400_naming_the_header(client: httpx.Client, bad: str) -> None:
    r = client.post("/invoke", json=invoke_body(), headers={"x-ag-session-id": bad})
    assert r.status_code == 400
    assert r.json()["detail"][0]["loc"] == ["header", "x-ag-session-id"]


@pytest.mark.parametrize("good", ["a.b", "a:b", "A-Z_09", "x" * 128, "1"])
def test_valid_session_ids_are_kept_exactly(client: httpx.Client, good: str) -> None:
    assert client.post("/invoke", json=invoke_body(session_id=good)).json()["session_id"] == good


# --------------------------------------------------------------------------- streams


def test_agenta_sse_frames(client: httpx.Client) -> None:
    r = client.post("/invoke", json=invoke_body(session_id="s2"), headers={"accept": SSE})
    assert r.status_code == 200
    assert r.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["x-accel-buffering"] == "no"
    assert r.headers["x-ag-session-id"] == "s2"
    assert "content-encoding" not in r.headers
    frames = sse_events(r.content)
    assert "[DONE]" not in frames
    assert all(set(f) == {"type", "data"} for f in frames)
    assert frames[0]["type"] == "message_start" and frames[0]["data"]["id"] == "m1"
    assert frames[-1]["type"] == "done"
    assert frames[-1]["data"]["stopReason"] == "end_turn"
    assert (
        "你好".encode()
        in client.post(
            "/invoke", json=invoke_body([{"role": "user", "content": "你好"}]), headers={"accept": SSE}
        ).content
    )  # UTF-8, not \\u-escaped


@pytest.mark.parametrize("accept", ["application/x-ndjson", "application/jsonl"])
@pytest.mark.parametrize("fmt", [None, "vercel"])
def test_ndjson_is_agenta_frames_for_both_formats(client: httpx.Client, accept: str, fmt: str | None) -> None:
    headers = {"accept": accept}
    messages = [{"role": "user", "content": "hi"}]
    if fmt:
        headers["x-ag-messages-format"] = fmt
        messages = [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}]
    r = client.post("/invoke", json=invoke_body(messages), headers=headers)
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/x-ndjson"
    assert "x-vercel-ai-ui-message-stream" not in r.headers
    frames = ndjson_lines(r.content)
    assert [f["type"] for f in frames][-1] == "done"
    assert {f["type"] for f in frames} >= {"message_start", "message_delta", "tool_call", "tool_result"}


def test_batch_equals_fold_of_the_ndjson_stream(client: httpx.Client) -> None:
    body = invoke_body([{"role": "user", "content": "fold me"}])
    batch = client.post("/invoke", json=body).json()["data"]["outputs"]
    frames = ndjson_lines(client.post("/invoke", json=body, headers={"accept": NDJSON}).content)
    assert batch == render_outputs(fold(decode_frames(frames)))


def test_vercel_sse_stream(client: httpx.Client) -> None:
    messages = [
        {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"id": "a-7", "role": "assistant", "parts": []},
    ]
    r = client.post(
        "/invoke",
        json=invoke_body(messages, session_id="v1"),
        headers={"accept": SSE, "x-ag-messages-format": "VerCel", "accept-encoding": "gzip"},
    )
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert r.headers["x-ag-messages-format"] == "vercel"
    assert r.headers["cache-control"] == "no-cache"
    assert r.headers["x-accel-buffering"] == "no"
    assert "content-encoding" not in r.headers
    chunks = sse_events(r.content)
    assert chunks[-1] == "[DONE]"
    types = [c["type"] for c in chunks[:-1]]
    assert types[:2] == ["start", "start-step"]
    assert types[-2:] == ["finish-step", "finish"]
    assert chunks[0] == {"type": "start", "messageId": "a-7", "messageMetadata": {"sessionId": "v1"}}
    assert chunks[-2]["finishReason"] == "stop"
    text = "".join(c["delta"] for c in chunks[:-1] if c["type"] == "text-delta")
    assert text == "you said: hidone ✓"
    assert "tool-input-available" in types and "tool-output-available" in types


def test_vercel_batch(client: httpx.Client) -> None:
    messages = [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "yo"}]}]
    r = client.post("/invoke", json=invoke_body(messages), headers={"x-ag-messages-format": "VERCEL"})
    assert r.status_code == 200
    assert r.headers["x-ag-messages-format"] == "vercel"
    assert r.headers["x-ag-messages-version"] == "v1"
    out = r.json()["data"]["outputs"]
    assert out["stop_reason"] == "end_turn"
    assert all({"id", "role", "parts"} <= set(m) for m in out["messages"])
    # The message the stream's client holds: its step opens first.
    step, text = out["messages"][0]["parts"][:2]
    assert step == {"type": "step-start"} and text == {"type": "text", "text": "you said: yo"}
