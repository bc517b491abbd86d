"""Resuming an Agenta SSE turn with ``Last-Event-ID`` over real HTTP (SQLite store, demo agent):
``GET /invoke/{session_id}/stream`` answers exactly the events after the client's last one, then
follows the turn to its end; 204 when nothing runs; 4xx naming the header for ids it never sent."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from fidelity_wire import stored

SSE = {"accept": "text/event-stream"}
CONTINUE = {"x-ag-on-disconnect": "continue"}
COUNT = 100  # numbers 50 ms apart: a 5 s turn
Event = tuple[str | None, dict[str, Any]]


def _body(session: str, text: str) -> dict[str, Any]:
    return {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}


def read_events(lines: Iterator[str], limit: int | None = None) -> list[Event]:
    """(id, data) of each SSE event, read line by line as a client does; stops after ``limit``."""
    out: list[Event] = []
    event_id: str | None = None
    for line in lines:
        if line.startswith("id: "):
            event_id = line[4:]
        elif line.startswith("data: "):
            out.append((event_id, orjson.loads(line[6:])))
            if limit is not None and len(out) >= limit:
                break
        else:
            assert line == "" or line.startswith(":"), line
    return out


def _resume(url: str, session: str, last: str | None = None, agent: str | None = None) -> httpx.Response:
    path = f"/agents/{agent}/invoke/{session}/stream" if agent else f"/invoke/{session}/stream"
    headers = {} if last is None else {"last-event-id": last}
    return httpx.get(url + path, headers=headers, timeout=30)


def _numbers(events: list[Event]) -> list[str]:
    return [data["data"]["delta"] for _, data in events if data["type"] == "message_delta"]


def _until_204(url: str, session: str) -> None:
    deadline = time.monotonic() + 10
    while _resume(url, session).status_code != 204:
        assert time.monotonic() < deadline, "the turn did not end"
        time.sleep(0.05)


@pytest.mark.parametrize("agent", [None, "demo"])
def test_reconnecting_with_last_event_id_gets_exactly_the_events_after_it(
    server: str, agent: str | None
) -> None:
    session = f"resume-{uuid.uuid4().hex}"
    invoke = f"/agents/{agent}/invoke" if agent else "/invoke"
    full: list[Event] = []

    def uninterrupted() -> None:  # another client reading the same turn from its first event
        path = f"/invoke/{session}/stream"
        with httpx.stream("GET", server + path, timeout=30) as r:
            assert r.status_code == 200
            full.extend(read_events(r.iter_lines()))

    body = _body(session, f"count to {COUNT}")
    with httpx.stream("POST", server + invoke, json=body, headers=SSE | CONTINUE, timeout=30) as first:
        assert first.status_code == 200
        trace = first.headers["x-ag-trace-id"]
        seen = read_events(first.iter_lines(), 13)
        reader = threading.Thread(target=uninterrupted)
        reader.start()
    # Dropped mid-turn, after the 13th event; the turn goes on (x-ag-on-disconnect: continue).
    last = seen[-1][0]
    assert last == f"{trace}:13"
    with httpx.stream(
        "GET",
        server + (f"/agents/{agent}" if agent else "") + f"/invoke/{session}/stream",
        headers={"last-event-id": last},
        timeout=30,
    ) as resumed:
        assert resumed.status_code == 200, resumed.read()
        assert resumed.headers["content-type"] == "text/event-stream; charset=utf-8"
        assert resumed.headers["x-ag-trace-id"] == trace
        assert resumed.headers["x-ag-session-id"] == session
        rest = read_events(resumed.iter_lines())
    reader.join(30)
    assert rest[0][0] == f"{trace}:14"  # exactly the events after the last one seen
    assert seen + rest == full  # nothing twice, nothing missed: the uninterrupted stream, ids included
    assert [event_id for event_id, _ in full] == [f"{trace}:{n}" for n in range(1, len(full) + 1)]
    assert _numbers(full) == [str(n) for n in range(1, COUNT + 1)]
    assert full[-1][1]["type"] == "done" and full[-1][1]["data"]["stopReason"] == "end_turn"
    # Over: nothing to resume, with or without the id; the whole reply is stored.
    assert _resume(server, session).status_code == 204
    assert _resume(server, session, last).status_code == 204
    [question, answer] = stored(server, session, "agenta")
    assert question["content"] == f"count to {COUNT}"
    assert "".join(_numbers(full)) in "".join(
        b["text"] for b in answer["content"] if b.get("type") == "text"
    ).replace(" ", "").replace("\n", "")


def test_resuming_after_the_last_event_of_a_running_turn_waits_for_the_next(server: str) -> None:
    """An id naming the newest event sent so far is valid: the answer starts with the next one."""
    session = f"newest-{uuid.uuid4().hex}"
    with httpx.stream(
        "POST", server + "/invoke", json=_body(session, "count to 30"), headers=SSE, timeout=30
    ) as r:
        lines = r.iter_lines()
        seen = read_events(lines, 4)
        with httpx.stream("GET", f"{server}/invoke/{session}/stream", timeout=30) as all_so_far:
            # The client stays connected, so the turn runs on; a second reader asks from event 4.
            resumed = _resume(server, session, seen[-1][0])
            rest_first = read_events(lines)
            everything = read_events(all_so_far.iter_lines())
    assert resumed.status_code == 200
    assert read_events(iter(resumed.text.splitlines())) == rest_first == everything[4:]
    assert everything[:4] == seen


def test_without_a_running_turn_resume_is_204(server: str) -> None:
    r = _resume(server, f"idle-{uuid.uuid4().hex}")
    assert r.status_code == 204 and r.content == b""
    assert _resume(server, "idle", "0123abcd:5").status_code == 204  # a well-formed id: still nothing
    assert _resume(server, "idle", "").status_code == 204  # empty = absent


@pytest.mark.parametrize(
    "value", ["garbage", "abc:0", "abc:-3", ":5", "abc:", "a b:1", "x" * 129 + ":1", "abc:1x"]
)
def test_a_malformed_last_event_id_is_a_400_naming_the_header(server: str, value: str) -> None:
    r = _resume(server, f"idle-{uuid.uuid4().hex}", value)
    assert r.status_code == 400, r.text
    [error] = r.json()["detail"]
    assert error["loc"] == ["header", "last-event-id"] and error["type"] == "invalid_last_event_id"


def test_ids_the_running_turn_never_sent_are_refused(server: str) -> None:
    session = f"foreign-{uuid.uuid4().hex}"
    with httpx.stream(
        "POST", server + "/invoke", json=_body(session, "count to 40"), headers=SSE, timeout=30
    ) as r:
        lines = r.iter_lines()  # held: a collected line iterator closes the connection
        seen = read_events(lines, 3)
        trace = r.headers["x-ag-trace-id"]
        other = _resume(server, session, f"{uuid.uuid4().hex}:2")  # another turn's event
        ahead = _resume(server, session, f"{trace}:100000")  # an event not sent
        mine = _resume(server, session, seen[0][0])  # but the client's own id still works
    assert other.status_code == 409, other.text
    assert other.json()["detail"][0]["loc"] == ["header", "last-event-id"]
    assert other.json()["detail"][0]["type"] == "last_event_id_of_another_turn"
    assert trace in other.json()["detail"][0]["msg"]
    assert ahead.status_code == 400 and ahead.json()["detail"][0]["type"] == "last_event_id_not_sent"
    assert mine.status_code == 200 and read_events(iter(mine.text.splitlines()))[0][0] == f"{trace}:2"


def test_bad_path_and_unknown_agent(server: str) -> None:
    r = httpx.get(f"{server}/invoke/bad%20id/stream", timeout=10)
    assert r.status_code == 400 and r.json()["detail"][0]["loc"] == ["path", "session_id"]
    r = httpx.get(f"{server}/agents/nobody/invoke/s1/stream", timeout=10)
    assert r.status_code == 404


def test_by_default_a_dropped_agenta_stream_cancels_its_turn(server: str) -> None:
    """Without ``x-ag-on-disconnect: continue`` the turn ends with its last reader: nothing to resume,
    and its partial reply is stored."""
    session = f"cancel-{uuid.uuid4().hex}"
    with httpx.stream(
        "POST", server + "/invoke", json=_body(session, "count to 200"), headers=SSE, timeout=30
    ) as r:
        seen = read_events(r.iter_lines(), 6)
    _until_204(server, session)
    answer = stored(server, session, "agenta")[-1]
    assert answer["role"] == "assistant" and _numbers(seen)[0] == "1"
    assert "200" not in str(answer["content"])


def test_an_ndjson_turn_has_no_ids_and_is_not_resumable(server: str) -> None:
    session = f"ndjson-{uuid.uuid4().hex}"
    headers = {"accept": "application/x-ndjson"}
    with httpx.stream(
        "POST", server + "/invoke", json=_body(session, "count to 20"), headers=headers, timeout=30
    ) as r:
        first = next(r.iter_lines())
        assert first.startswith("{")
        assert _resume(server, session).status_code == 204
