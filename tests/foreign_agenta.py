"""A minimal server that speaks the Agenta invoke protocol and is not turnwire: frames that repeat
`type` inside `data`, a frame type clients do not know, keepalive comments, no history routes.
Its agent asks to approve `rm /tmp/x`, then echoes the decision it got."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.routing import Route

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


def foreign_app() -> Starlette:
    return Starlette(routes=[Route("/invoke", invoke, methods=["POST"])])
