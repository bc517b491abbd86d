"""The app under fuzzing: the real turnwire app with fast test agents (no sleeping demo commands)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import AsyncIterator, Iterator

import uvicorn
from fastapi import FastAPI

from services import free_port
from turnwire.model import Done, Event, MessageEvent, ToolCall, ToolResult
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app


async def echo(ctx: TurnContext) -> AsyncIterator[Event]:
    yield MessageEvent(text=ctx.last_user_text() or "nothing")
    yield ToolCall(id="c1", name="t", input={"n": len(ctx.messages)})
    yield ToolResult(id="c1", output="ok")
    yield Done(stop_reason="end_turn")


async def crash(ctx: TurnContext) -> AsyncIterator[Event]:
    yield MessageEvent(text="partial")
    raise RuntimeError("boom")


def fuzz_app() -> FastAPI:
    settings = Settings(max_body_bytes=256 * 1024, keepalive_seconds=0)
    return create_app({"echo": echo, "crash": crash}, default_agent="echo", settings=settings)


@contextlib.contextmanager
def live_fuzz_server() -> Iterator[str]:
    """``fuzz_app()`` under a real uvicorn on 127.0.0.1 (a background thread); yields its base URL."""
    port = free_port()
    config = uvicorn.Config(fuzz_app(), host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)
