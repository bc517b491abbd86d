"""Workload 4 floor: a bare Starlette ``StreamingResponse`` emitting the bytes turnwire streams.

``POST /invoke`` with the same body as turnwire's answers the demo agent's ``count to <n>`` as
Agenta SSE: for every number a ``message_start``/``message_delta``/``message_end`` frame, then
``usage`` and ``done``, one ``orjson.dumps`` per frame. ``?cadence=0`` drops the 50 ms pause between
numbers (the bench agent ``fast_count`` does the same on the turnwire side). Every event carries
the id ``<trace id>:<n>`` as turnwire's Agenta SSE does. No parsing beyond the
last message's text, no validation, no runtime: the least a server can do to put these bytes on
the wire.

    uvicorn floor_app:app --app-dir bench --host 127.0.0.1 --port 8001
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

CADENCE = 0.05
_COUNT = re.compile(r"count to\s+(\d{1,12})", re.IGNORECASE)
_dumps = orjson.dumps


async def _count(n: int, words: int, cadence: float) -> AsyncIterator[bytes]:
    trace = uuid.uuid4().hex
    template = f"id: {trace}:%d\ndata: ".encode()  # event ids <trace id>:<n>, as turnwire's
    number = 0

    def frame(kind: str, data: dict) -> bytes:
        nonlocal number
        number += 1
        return template % number + _dumps({"type": kind, "data": data}) + b"\n\n"

    for i in range(1, n + 1):
        if i > 1 and cadence:
            await asyncio.sleep(cadence)
        mid = f"msg_1_{i}"
        yield frame("message_start", {"id": mid})
        yield frame("message_delta", {"id": mid, "delta": str(i)})
        yield frame("message_end", {"id": mid})
    yield frame("usage", {"input": words, "output": n, "total": words + n})
    yield frame("done", {"stopReason": "end_turn", "traceId": trace})


async def invoke(request: Request) -> StreamingResponse:
    body = orjson.loads(await request.body())
    text = body["data"]["inputs"]["messages"][-1]["content"].strip()
    match = _COUNT.fullmatch(text)
    n = int(match.group(1)) if match else 0
    cadence = float(request.query_params.get("cadence", CADENCE))
    return StreamingResponse(
        _count(n, len(text.split()), cadence),
        media_type="text/event-stream; charset=utf-8",
        headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
    )


app = Starlette(routes=[Route("/invoke", invoke, methods=["POST"])])
