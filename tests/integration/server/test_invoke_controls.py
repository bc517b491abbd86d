"""The Agenta request controls on a real server (``doors.agenta.controls``): ``flags.stream``,
``flags.trim`` / ``x-ag-messages-transcript``, ``flags.detached``, ``flags.force`` /
``x-ag-session-control``."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from services import serve_app
from turnwire.fold import fold
from turnwire.formats.agenta import decode_frames, render_outputs
from turnwire.model import Event, MessageDelta, MessageEnd, MessageEvent, MessageStart, ToolCall, ToolResult
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app
from turnwire.server.doors.agenta.controls import trim_to_trailing_unit

SSE = "text/event-stream"
WORDS = 150
FULL = "".join(f"w{i} " for i in range(WORDS))


async def tools(ctx: TurnContext) -> AsyncIterator[Event]:
    """``text tail``: a text after the tool run; ``tool tail``: the turn ends on the run."""
    yield MessageEvent("I will look")
    yield ToolCall(id="c1", name="search", input={"q": "x"})
    yield ToolResult(id="c1", output="found")
    yield ToolCall(id="c2", name="read", input={"path": "a"})
    yield ToolResult(id="c2", output="text")
    if ctx.last_user_text() == "text tail":
        yield MessageEvent("Done.")


async def long(ctx: TurnContext) -> AsyncIterator[Event]:
    text = ctx.last_user_text().strip()
    yield MessageStart(id="m1")
    for i in range(int(text) if text.isdigit() else WORDS):
        yield MessageDelta(id="m1", delta=f"w{i} ")
        await asyncio.sleep(0.01)
    yield MessageEnd(id="m1")


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("controls")
    settings = Settings(
        db_url=f"sqlite:///{home / 'controls.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
    )
    with serve_app(create_app({"tools": tools, "long": long}, default_agent="tools", settings=settings)) as u:
        yield u


def body(text: str, session: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"data": {"inputs": {"messages": [{"role": "user", "content": text}]}}, **extra}
    if session is not None:
        out["session_id"] = session
    return out


def outputs(response: httpx.Response) -> Any:
    assert response.status_code == 200, response.text
    return response.json()["data"]["outputs"]


def test_trim_cuts_the_batch_answer_to_its_trailing_unit(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        full = outputs(http.post("/invoke", json=body("text tail")))["messages"]
        assert [m["role"] for m in full] == ["assistant", "tool", "tool", "tool", "tool", "assistant"]
        trimmed = outputs(http.post("/invoke", json=body("text tail", flags={"trim": True})))
        assert trimmed["messages"] == [{"role": "assistant", "content": "Done."}]
        assert trimmed["stop_reason"] == "end_turn"

        tail = outputs(http.post("/invoke", json=body("tool tail")))["messages"]
        header = {"x-ag-messages-transcript": "last"}
        cut = outputs(http.post("/invoke", json=body("tool tail"), headers=header))["messages"]
        # The trailing tool run (two calls, two results) with the message that opened it: all of it.
        assert cut == tail and cut[0] == {"role": "assistant", "content": "I will look"}
        # The body's flag wins over the header; `full` is the whole answer.
        kept = http.post("/invoke", json=body("text tail", flags={"trim": False}), headers=header)
        assert outputs(kept)["messages"] == full
        full_header = {"x-ag-messages-transcript": "full"}
        assert outputs(http.post("/invoke", json=body("text tail"), headers=full_header))["messages"] == full


def test_trim_leaves_streams_whole(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        lines = http.post(
            "/invoke",
            json=body("text tail", flags={"trim": True}),
            headers={"accept": "application/x-ndjson"},
        ).text.splitlines()
    types = [orjson.loads(line)["type"] for line in lines if line]
    assert types.count("tool_call") == 2 and types.count("message") == 2


def test_the_stream_flag_streams_without_accept_and_clashes_with_a_contrary_one(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        streamed = http.post("/invoke", json=body("text tail", flags={"stream": True}))
        assert streamed.status_code == 200
        assert streamed.headers["content-type"].startswith("application/x-ndjson")
        frames = [orjson.loads(line) for line in streamed.text.splitlines() if line]
        assert frames[-1]["type"] == "done"
        sse = http.post("/invoke", json=body("text tail", flags={"stream": True}), headers={"accept": SSE})
        assert sse.headers["content-type"].startswith(SSE)
        for flags, accept in (
            ({"stream": True}, "application/json"),
            ({"stream": False}, SSE),
            ({"stream": None}, SSE),
        ):
            refused = http.post("/invoke", json=body("x", flags=flags), headers={"accept": accept})
            assert refused.status_code == 406, (flags, accept, refused.text)
            assert refused.json()["requested"] == accept
        bad = http.post("/invoke", json=body("x", flags={"stream": "yes"}))
        assert bad.status_code == 422
        assert bad.json()["detail"][0]["loc"] == ["body", "flags", "stream"]


def stored_text(http: httpx.Client, session: str) -> str:
    response = http.get(f"/tasks/{session}/messages", params={"format": "agenta"})
    if response.status_code != 200:
        return ""
    return "".join(m.get("content") or "" for m in response.json()["messages"] if m["role"] == "assistant")


def ended(http: httpx.Client, session: str) -> bool:
    """The turn on ``session`` has stored its end: its reply is no longer streaming (asked of the
    stored records: a resume probe would attach to the turn and keep it alive)."""
    response = http.get(f"/tasks/{session}/messages")
    if response.status_code != 200:
        return False
    records = response.json()["messages"]
    replies = [r for r in records if r["content"].get("author") == "agent"]
    return bool(replies) and all(r.get("streaming_status") == "DONE" for r in replies)


def wait_for(predicate: Any, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.02)


def first_delta(http: httpx.Client, request: dict[str, Any], headers: dict[str, str]) -> str:
    """Start a streamed turn of ``long``, read up to its first delta, leave; its trace id."""
    with http.stream("POST", "/agents/long/invoke", json=request, headers={"accept": SSE, **headers}) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if '"message_delta"' in line:
                return r.headers["x-ag-trace-id"]
    raise AssertionError("no delta")


def test_a_detached_turn_outlives_its_connection(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        session = f"detached-{uuid.uuid4().hex[:8]}"
        first_delta(http, body(str(WORDS), session, flags={"detached": True}), {})
        wait_for(lambda: stored_text(http, session) == FULL)
        # Without it the turn goes with its client (the Agenta doors' default) ...
        cut = f"cut-{uuid.uuid4().hex[:8]}"
        first_delta(http, body(str(WORDS), cut), {})
        wait_for(lambda: ended(http, cut))
        assert 0 < len(stored_text(http, cut)) < len(FULL)
        # ... and the body's flag wins over x-ag-on-disconnect.
        kept = f"kept-{uuid.uuid4().hex[:8]}"
        first_delta(
            http, body(str(WORDS), kept, flags={"detached": False}), {"x-ag-on-disconnect": "continue"}
        )
        wait_for(lambda: ended(http, kept))
        assert 0 < len(stored_text(http, kept)) < len(FULL)


def test_force_attaches_to_the_running_turn_or_takes_it_over(url: str) -> None:
    session = f"force-{uuid.uuid4().hex[:8]}"
    with httpx.Client(base_url=url, timeout=30) as http:
        running = http.stream(
            "POST", "/agents/long/invoke", json=body(str(WORDS), session), headers={"accept": SSE}
        )
        first = running.__enter__()
        try:
            lines = first.iter_lines()
            next(line for line in lines if '"message_delta"' in line)
            trace = first.headers["x-ag-trace-id"]
            # A second turn on the busy conversation is refused by default ...
            busy = http.post("/agents/long/invoke", json=body("5", session))
            assert busy.status_code == 409
            # ... attached to with force and no messages: the running turn's own events.
            attach = {"session_id": session, "flags": {"force": True}}
            attached = http.post("/agents/long/invoke", json=attach, headers={"accept": SSE})
            assert attached.status_code == 200
            assert attached.headers["x-ag-trace-id"] == trace
            said = "".join(
                orjson.loads(line[6:])["data"].get("delta", "")
                for line in attached.text.splitlines()
                if line.startswith("data: ") and '"message_delta"' in line
            )
            assert said == FULL
        finally:
            running.__exit__(None, None, None)

        # Taken over with the header and a new message: the running turn stops, this one runs.
        again = f"takeover-{uuid.uuid4().hex[:8]}"
        with http.stream(
            "POST",
            "/agents/long/invoke",
            json=body(str(WORDS * 10), again, flags={"detached": True}),
            headers={"accept": SSE},
        ) as r:
            next(line for line in r.iter_lines() if '"message_delta"' in line)
        history = [{"role": "user", "content": str(WORDS * 10)}, {"role": "user", "content": "3"}]
        took = http.post(
            "/agents/long/invoke",
            json={"session_id": again, "data": {"inputs": {"messages": history}}},
            headers={"x-ag-session-control": "force"},
        )
        assert took.status_code == 200, took.text
        assert took.json()["data"]["outputs"]["messages"] == [{"role": "assistant", "content": "w0 w1 w2 "}]
        stored = http.get(f"/tasks/{again}/messages", params={"format": "agenta"}).json()["messages"]
        assert [m["role"] for m in stored] == ["user", "assistant", "user", "assistant"]
        assert len(stored[1]["content"]) < len("".join(f"w{i} " for i in range(WORDS * 10)))


@pytest.mark.parametrize("text", ["text tail", "tool tail"])
def test_a_trimmed_batch_is_the_trim_of_the_folded_stream(url: str, text: str) -> None:
    """agenta's contract: batch outputs == fold(NDJSON frames) for the same request, with and
    without trim."""
    with httpx.Client(base_url=url, timeout=30) as http:
        trimmed = outputs(http.post("/invoke", json=body(text, flags={"trim": True})))
        lines = http.post("/invoke", json=body(text), headers={"accept": "application/x-ndjson"}).text
    folded = render_outputs(fold(decode_frames([orjson.loads(line) for line in lines.splitlines() if line])))
    assert trimmed == {**folded, "messages": trim_to_trailing_unit(folded["messages"])}
