"""Streams over real HTTP: the demo agent's scenarios, failures, keepalive, client disconnects."""

from __future__ import annotations

import socket
import time

import httpx
import orjson
import pytest
from live_server import KEEPALIVE, Probe
from server_wire import invoke_body, ndjson_lines, sse_comments, sse_events, sse_ids

from turnwire.fold import fold
from turnwire.formats import agenta, vercel
from turnwire.formats.agenta import decode_frames

SSE = "text/event-stream"
NDJSON = "application/x-ndjson"
VERCEL = {"x-ag-messages-format": "vercel"}
DEMO_SCENARIOS = ["hello there", "weather in Paris", "count to 3", "fail", "silent", "sleep 0.05"]


def _say(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def _ui(text: str) -> list[dict]:
    return [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}]


@pytest.mark.parametrize("text", DEMO_SCENARIOS)
def test_demo_batch_equals_fold_of_its_ndjson_stream(client: httpx.Client, text: str) -> None:
    body = invoke_body(_say(text), session_id="fold-1")
    batch = client.post("/agents/demo/invoke", json=body)
    stream = client.post("/agents/demo/invoke", json=body, headers={"accept": NDJSON})
    assert stream.status_code == 200
    # A failed turn answers the reference's 500 with the failure's text; what it said is kept.
    assert batch.status_code == (500 if text == "fail" else 200)
    frames = ndjson_lines(stream.content)
    assert frames[-1]["type"] == "done"
    assert sum(f["type"] == "done" for f in frames) == 1
    assert batch.json()["data"]["outputs"] == agenta.render_outputs(fold(decode_frames(frames)))


@pytest.mark.parametrize("text", DEMO_SCENARIOS)
def test_demo_vercel_batch_equals_fold_of_its_ndjson_stream(client: httpx.Client, text: str) -> None:
    body = invoke_body(_ui(text))
    batch = client.post("/agents/demo/invoke", json=body, headers=VERCEL)
    stream = client.post("/agents/demo/invoke", json=body, headers={"accept": NDJSON, **VERCEL})
    events = list(decode_frames(ndjson_lines(stream.content)))
    answer = batch.json()
    message_id = f"msg-{answer['trace_id']}"  # as the stream's start.messageId would be
    expected = vercel.render_outputs(
        fold(events),
        message_id=message_id,
        events=events,
        session_id=answer["session_id"],
        trace_id=answer["trace_id"],
    )
    assert answer["data"]["outputs"] == expected


@pytest.mark.parametrize("transport", ["sse", "ndjson"])
def test_demo_fail_in_agenta_frames_ends_with_error_and_done(client: httpx.Client, transport: str) -> None:
    accept = SSE if transport == "sse" else NDJSON
    r = client.post("/agents/demo/invoke", json=invoke_body(_say("fail")), headers={"accept": accept})
    assert r.status_code == 200
    frames = sse_events(r.content) if transport == "sse" else ndjson_lines(r.content)
    types = [f["type"] for f in frames]
    assert types[-2:] == ["error", "done"]
    assert frames[-1]["data"]["stopReason"] == "error"
    assert "demo failure requested" in frames[-2]["data"]["message"]
    assert "message_delta" in types  # the partial text before the failure is kept


def test_demo_fail_batch_keeps_partial_text_and_says_error(client: httpx.Client) -> None:
    out = client.post("/agents/demo/invoke", json=invoke_body(_say("fail"))).json()["data"]["outputs"]
    assert out["stop_reason"] == "error"
    assert out["messages"] == [{"role": "assistant", "content": "Starting…"}]


def test_demo_silent_in_agenta_frames_is_one_done(client: httpx.Client) -> None:
    r = client.post("/agents/demo/invoke", json=invoke_body(_say("silent")), headers={"accept": SSE})
    frames = sse_events(r.content)
    assert [f["type"] for f in frames] == ["done"]
    batch = client.post("/agents/demo/invoke", json=invoke_body(_say("silent"))).json()
    assert batch["data"]["outputs"]["messages"] == []


def test_demo_fail_in_the_vercel_stream(client: httpx.Client) -> None:
    r = client.post("/agents/demo/invoke", json=invoke_body(_ui("fail")), headers={"accept": SSE, **VERCEL})
    chunks = sse_events(r.content)
    assert chunks[-1] == "[DONE]"
    types = [c["type"] for c in chunks[:-1]]
    assert types[:2] == ["start", "start-step"]
    assert types[-2:] == ["finish-step", "finish"]
    errors = [c for c in chunks[:-1] if c["type"] == "error"]
    assert len(errors) == 1 and "demo failure requested" in errors[0]["errorText"]
    assert types.index("text-end") < types.index("error") < types.index("finish-step")
    assert chunks[-2]["finishReason"] == "error"
    assert "The agent produced no output." not in r.text


def test_demo_silent_in_the_vercel_stream_says_no_output(client: httpx.Client) -> None:
    r = client.post("/agents/demo/invoke", json=invoke_body(_ui("silent")), headers={"accept": SSE, **VERCEL})
    chunks = sse_events(r.content)
    assert [c if c == "[DONE]" else c["type"] for c in chunks] == [
        "start",
        "start-step",
        "finish-step",
        "data-agent-error",
        "error",
        "finish",
        "[DONE]",
    ]
    assert chunks[4] == {"type": "error", "errorText": "The agent produced no output."}
    assert chunks[3]["data"]["code"] == "no_output"


def test_agent_exception_in_the_agenta_stream(client: httpx.Client) -> None:
    r = client.post("/agents/boom/invoke", json=invoke_body(), headers={"accept": SSE})
    frames = sse_events(r.content)
    assert [f["type"] for f in frames][-2:] == ["error", "done"]
    assert frames[-2]["data"]["message"] == "Agent run failed: provider exploded"


# --------------------------------------------------------------------------- keepalive


@pytest.mark.parametrize("fmt", [{}, VERCEL])
def test_keepalive_comments_fill_a_silent_gap_on_sse(client: httpx.Client, fmt: dict) -> None:
    body = invoke_body(_ui("x") if fmt else _say("x"))
    r = client.post("/agents/gap/invoke", json=body, headers={"accept": SSE, **fmt})
    comments = sse_comments(r.content)
    # a 5-interval gap: about four comments; allow scheduling slack but demand real ones
    assert 2 <= len(comments) <= 6, comments
    assert set(comments) == {b": keepalive"}
    text = r.content.decode()
    assert text.index("before") < text.index(": keepalive") < text.index("after")
    events = sse_events(r.content)  # comments do not disturb the events
    assert events[-1] == "[DONE]" if fmt else events[-1]["type"] == "done"
    # Events with ids (Agenta) keep alive with a bare comment line: a blank line after it would be
    # an empty event to httpx-sse-style decoders once they have seen an id.
    assert (b": keepalive\n\n" in r.content) == bool(fmt)
    assert (sse_ids(r.content) == []) == bool(fmt)


def test_an_httpx_sse_style_decoder_reads_agenta_events_with_ids_and_keepalives(client: httpx.Client) -> None:
    """The decoder the Stainless clients carry (a copy of ``httpx-sse``'s), fed in small pieces:
    every event has its id and JSON data, and no keepalive becomes an event."""
    from agentex._streaming import SSEDecoder

    r = client.post("/agents/gap/invoke", json=invoke_body(_say("x")), headers={"accept": SSE})
    assert b": keepalive\n" in r.content
    pieces = [r.content[i : i + 7] for i in range(0, len(r.content), 7)]
    events = list(SSEDecoder().iter_bytes(iter(pieces)))
    assert [orjson.loads(e.data) for e in events] == sse_events(r.content)
    assert [e.id for e in events] == sse_ids(r.content)
    # Why the keepalive has no blank line after it: with one, once an id was seen, this decoder
    # reports an event with empty data (not JSON) for every keepalive.
    blank = r.content.replace(b": keepalive\n", b": keepalive\n\n")
    assert any(e.data == "" for e in SSEDecoder().iter_bytes(iter([blank])))


@pytest.mark.parametrize("transport", ["sse", "ndjson"])
def test_agenta_sse_events_are_numbered_within_their_turn(client: httpx.Client, transport: str) -> None:
    """``id: <trace id>:<n>``, n = 1, 2, … on every Agenta SSE event; NDJSON lines and Vercel chunks
    have no such field (their bytes are unchanged)."""
    body = invoke_body(_say("count to 3"))
    r = client.post(
        "/agents/demo/invoke", json=body, headers={"accept": SSE if transport == "sse" else NDJSON}
    )
    trace = r.headers["x-ag-trace-id"]
    if transport == "ndjson":
        assert ndjson_lines(r.content)[-1]["type"] == "done"  # JSON lines, nothing else
        return
    events = sse_events(r.content)
    assert sse_ids(r.content) == [f"{trace}:{n}" for n in range(1, len(events) + 1)]
    assert r.content.startswith(f"id: {trace}:1\ndata: ".encode())
    vercel_stream = client.post(
        "/agents/demo/invoke", json=invoke_body(_ui("count to 3")), headers={"accept": SSE, **VERCEL}
    )
    assert sse_ids(vercel_stream.content) == [] and b"\nid: " not in vercel_stream.content


def test_no_keepalive_without_a_gap(client: httpx.Client) -> None:
    r = client.post("/invoke", json=invoke_body(), headers={"accept": SSE})
    assert sse_comments(r.content) == []


def test_ndjson_gets_no_keepalive_lines(client: httpx.Client) -> None:
    r = client.post("/agents/gap/invoke", json=invoke_body(), headers={"accept": NDJSON})
    assert b"\n\n" not in r.content and not r.content.startswith(b"\n")
    assert [f["type"] for f in ndjson_lines(r.content)][-1] == "done"


# --------------------------------------------------------------------------- disconnect


@pytest.mark.parametrize("accept", [SSE, NDJSON])
def test_client_disconnect_cancels_the_agent_within_a_second(
    base_url: str, probe: Probe, accept: str
) -> None:
    probe.started.clear()
    probe.cancelled.clear()
    port = int(base_url.rsplit(":", 1)[1])
    body = orjson.dumps(invoke_body())
    request = (
        f"POST /agents/sleeper/invoke HTTP/1.1\r\nhost: 127.0.0.1\r\naccept: {accept}\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(request)
        head = sock.recv(65536)
        assert head.startswith(b"HTTP/1.1 200"), head
        assert probe.started.wait(5)
        while b"thinking" not in head:
            head += sock.recv(65536)
    closed = time.monotonic()
    assert probe.cancelled.wait(1.0), "the agent was not cancelled within 1 s of the disconnect"
    assert time.monotonic() - closed < 1.0


def test_disconnect_during_keepalive_gap_cancels_the_agent(base_url: str, probe: Probe) -> None:
    probe.started.clear()
    probe.cancelled.clear()
    with (
        httpx.Client(base_url=base_url, timeout=5) as c,
        c.stream("POST", "/agents/sleeper/invoke", json=invoke_body(), headers={"accept": SSE}) as r,
    ):
        seen = b""
        for chunk in r.iter_raw():
            seen += chunk
            if b": keepalive" in seen:
                break
    closed = time.monotonic()
    assert probe.cancelled.wait(1.0)
    assert time.monotonic() - closed < 1.0
    assert KEEPALIVE < 1


def test_a_failed_batch_turn_names_the_failure_in_its_status(client: httpx.Client) -> None:
    r = client.post("/agents/demo/invoke", json=invoke_body(_say("fail")))
    assert r.status_code == 500
    status = r.json()["status"]
    assert status == {
        "code": 500,
        "message": "Agent run failed: demo failure requested",
        "failure_code": "agent_run_failed",
    }
    assert r.json()["data"]["outputs"]["stop_reason"] == "error"
    assert r.json()["data"]["outputs"]["messages"]  # the words said before the failure are kept
