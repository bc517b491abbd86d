"""A local OpenAI-compatible server that replays recorded Chat Completions streams (real HTTP, loopback).

``POST /v1/chat/completions`` picks a recording by the last user message (``index.json`` in
tests/fixtures/openai_streams maps prompts to scenario names) and by the step: how many assistant
messages follow that user message. Files, tried in order for scenario ``s`` at step ``n``:

- ``s.n.denied.sse`` when a tool message of this turn says the user denied the call;
- ``s.n.sse`` (or ``s.sse`` at step 0): SSE events separated by blank lines, each sent as one chunk.
  Comment lines direct the replay: ``: sleep <seconds>`` pauses, ``: abort`` drops the connection
  without ending the HTTP response (a stream cut mid-way);
- ``s.json``: ``{"status", "headers", "body"}``, a plain error response.

``POST /v1/responses`` (the Responses API, which the OpenAI Agents SDK uses by default) replays
``responses/s.n.sse`` the same way: the step counts the model's outputs (runs of ``function_call`` /
assistant message / reasoning items) after the last user input item, a denial is a
``function_call_output`` of this turn saying "denied", and error scenarios share ``s.json``.

Every request body is kept (``requests``), and every stream records when it started and when the
server saw the client leave (``disconnects``).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from services import serve_app

STREAMS = Path(__file__).parent / "fixtures" / "openai_streams"
RESPONSES = STREAMS / "responses"


class Abort(Exception):
    """Raised inside a streaming body: uvicorn drops the connection mid-response."""


@dataclass
class Disconnect:
    scenario: str
    started: float
    left: float | None = None
    """``time.monotonic()`` when the server saw the client go (its body generator was cancelled)."""
    left_event: threading.Event = field(default_factory=threading.Event)


@dataclass
class FakeOpenAI:
    url: str = ""
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    disconnects: list[Disconnect] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def last_messages(self) -> list[dict[str, Any]]:
        return self.requests[-1]["messages"]


def _index() -> dict[str, str]:
    return orjson.loads((STREAMS / "index.json").read_bytes())


def _pick(messages: list[dict[str, Any]]) -> tuple[str | None, int, bool]:
    """(scenario, step, denied) for a request's messages."""
    last_user = max((i for i, m in enumerate(messages) if m.get("role") == "user"), default=-1)
    if last_user < 0:
        return None, 0, False
    content = messages[last_user].get("content")
    if isinstance(content, list):
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    after = messages[last_user + 1 :]
    step = sum(1 for m in after if m.get("role") == "assistant")
    denied = any(m.get("role") == "tool" and "denied" in str(m.get("content", "")) for m in after)
    return _index().get(str(content).strip()), step, denied


def _pick_responses(body: dict[str, Any]) -> tuple[str | None, int, bool]:
    """(scenario, step, denied) for a Responses request's ``input`` items."""
    items = body.get("input")
    if isinstance(items, str):
        items = [{"role": "user", "content": items}]
    items = [i for i in items or () if isinstance(i, dict)]
    users = [n for n, i in enumerate(items) if i.get("role") == "user"]
    if not users:
        return None, 0, False
    content = items[users[-1]].get("content")
    if isinstance(content, list):
        content = "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    step, in_output, denied = 0, False, False
    for item in items[users[-1] + 1 :]:
        output = item.get("type") in ("function_call", "reasoning") or item.get("role") == "assistant"
        if output and not in_output:
            step += 1
        in_output = output
        if item.get("type") == "function_call_output" and "denied" in str(item.get("output", "")):
            denied = True
    return _index().get(str(content).strip()), step, denied


def _replay(state: FakeOpenAI, folder: Path, scenario: str, step: int, denied: bool) -> Response:
    candidates = [f"{scenario}.{step}.denied.sse"] if denied else []
    candidates += [f"{scenario}.{step}.sse"] + ([f"{scenario}.sse", f"{scenario}.json"] if step == 0 else [])
    for name in candidates:
        path = (STREAMS if name.endswith(".json") else folder) / name
        if not path.exists():
            continue
        if name.endswith(".json"):
            spec = orjson.loads(path.read_bytes())
            return JSONResponse(spec["body"], spec["status"], headers=spec.get("headers"))
        return ReplayResponse(state, scenario, _events(path.read_bytes()))
    return JSONResponse({"error": {"message": f"no recording {candidates}", "type": "test"}}, 400)


def _events(raw: bytes) -> list[bytes]:
    return [block + b"\n\n" for block in raw.replace(b"\r\n", b"\n").split(b"\n\n") if block.strip()]


def make_app(state: FakeOpenAI) -> Starlette:
    async def completions(request: Request) -> Response:
        body = orjson.loads(await request.body())
        state.requests.append(body)
        state.headers.append(dict(request.headers))
        scenario, step, denied = _pick(body.get("messages", []))
        if scenario is None:
            return JSONResponse({"error": {"message": "no recording for this prompt", "type": "test"}}, 400)
        candidates = [f"{scenario}.{step}.denied.sse"] if denied else []
        candidates += [f"{scenario}.{step}.sse"] + (
            [f"{scenario}.sse", f"{scenario}.json"] if step == 0 else []
        )
        for name in candidates:
            path = STREAMS / name
            if not path.exists():
                continue
            if name.endswith(".json"):
                spec = orjson.loads(path.read_bytes())
                return JSONResponse(spec["body"], spec["status"], headers=spec.get("headers"))
            return ReplayResponse(state, scenario, _events(path.read_bytes()))
        return JSONResponse({"error": {"message": f"no recording {candidates}", "type": "test"}}, 400)

    async def responses(request: Request) -> Response:
        body = orjson.loads(await request.body())
        state.requests.append(body)
        state.headers.append(dict(request.headers))
        scenario, step, denied = _pick_responses(body)
        if scenario is None:
            return JSONResponse({"error": {"message": "no recording for this prompt", "type": "test"}}, 400)
        return _replay(state, RESPONSES, scenario, step, denied)

    return Starlette(
        routes=[
            Route("/v1/chat/completions", completions, methods=["POST"]),
            Route("/v1/responses", responses, methods=["POST"]),
        ]
    )


class ReplayResponse(Response):
    """Sends the recorded events while listening for the client to leave (``http.disconnect``), so the
    server notices a departure at once, even in the middle of a ``: sleep``."""

    def __init__(self, state: FakeOpenAI, scenario: str, events: list[bytes]) -> None:
        super().__init__(media_type="text/event-stream")
        self.state, self.scenario, self.events = state, scenario, events

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        record = Disconnect(self.scenario, time.monotonic())
        self.state.disconnects.append(record)
        replay = asyncio.ensure_future(self._send(send))

        async def listen() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        listener = asyncio.ensure_future(listen())
        await asyncio.wait((replay, listener), return_when=asyncio.FIRST_COMPLETED)
        if listener.done() and not replay.done():
            record.left = time.monotonic()
            record.left_event.set()
            replay.cancel()
        listener.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await replay
        with contextlib.suppress(asyncio.CancelledError):
            await listener

    async def _send(self, send: Any) -> None:
        headers = [(b"content-type", b"text/event-stream; charset=utf-8"), (b"cache-control", b"no-cache")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        for event in self.events:
            if event.startswith(b": sleep "):
                await asyncio.sleep(float(event[8:].strip()))
                continue
            if event.startswith(b": abort"):
                raise Abort("the recording cuts the connection here")
            await send({"type": "http.response.body", "body": event, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


@contextlib.contextmanager
def fake_openai() -> Iterator[FakeOpenAI]:
    state = FakeOpenAI()
    with serve_app(make_app(state), lifespan="off") as url:
        state.url = url
        yield state
