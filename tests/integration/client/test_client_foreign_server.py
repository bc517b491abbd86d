"""The client needs only the Agenta invoke protocol: a minimal server that is not turnwire (frames
that repeat `type` inside `data`, extra frame types, keepalive comments, no history routes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

from services import serve_app
from turnwire.client import Client
from turnwire.model import TextBlock

SEEN: list[Any] = []


def _frame(frame_type: str, **data: Any) -> str:
    return "data: " + json.dumps({"type": frame_type, "data": {"type": frame_type, **data}}) + "\n\n"


async def invoke(request: Request) -> Any:
    body = await request.json()
    SEEN.append(body)
    messages = body["data"]["inputs"]["messages"]
    last = messages[-1]
    if last["role"] == "user":
        frames = [
            ": keepalive\n\n",
            _frame("attachment_delivery", id="x"),  # a frame type the client does not know
            _frame("tool_call", id="c1", name="rm", rawInput={"path": "/tmp/x"}),
            _frame(
                "interaction_request",
                id="tok-1",
                kind="user_approval",
                payload={"toolCallId": "c1", "toolName": "rm", "toolCall": {"rawInput": {"path": "/tmp/x"}}},
            ),
            _frame("done", stopReason="paused", traceId="t1"),
        ]
    else:
        frames = [
            _frame("message", text=f"decision seen: {json.dumps(last['content'])}"),
            _frame("done", stopReason="end_turn"),
        ]
    if "text/event-stream" not in request.headers.get("accept", ""):
        return JSONResponse({"detail": "stream only"}, status_code=406)

    async def body_iter() -> Any:
        for f in frames:
            yield f

    return StreamingResponse(body_iter(), media_type="text/event-stream")


@pytest.fixture(scope="module")
def foreign_url() -> Iterator[str]:
    app = Starlette(routes=[Route("/invoke", invoke, methods=["POST"])])
    with serve_app(app) as url:
        yield url


def test_a_foreign_agenta_server_round_trip(foreign_url: str) -> None:
    with Client(foreign_url) as client:
        session = client.session("foreign-1", resume=True)  # no history route: starts empty
        assert session.history == []
        turn = session.send("remove it")
        assert turn.stop_reason == "paused"
        [request] = turn.pending
        assert request.id == "tok-1"
        done = turn.approve()
        text = [b.text for m in done.result().messages for b in m.content if isinstance(b, TextBlock)]
    decision = SEEN[-1]["data"]["inputs"]["messages"][-1]
    assert decision["role"] == "tool"
    assert decision["content"][0]["toolCallId"] == "c1"
    assert decision["content"][0]["output"] == {"approved": True, "interactionToken": "tok-1"}
    assert len(text) == 1 and text[0].startswith("decision seen: ")
    assert json.loads(text[0].removeprefix("decision seen: "))[0]["output"]["interactionToken"] == "tok-1"
    assert SEEN[-1]["session_id"] == "foreign-1"
