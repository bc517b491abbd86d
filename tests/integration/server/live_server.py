"""A real uvicorn server on 127.0.0.1 for the server tests, and the test agents it serves."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from fastapi import FastAPI

from services import serve_app
from turnwire.model import (
    Done,
    Event,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ToolCall,
    ToolResult,
)
from turnwire.runtime import TurnContext

KEEPALIVE = 0.2
MAX_BODY = 64 * 1024


def serve(app: FastAPI) -> contextlib.AbstractContextManager[str]:
    """Run ``app`` with uvicorn in a background thread; yield its base URL."""
    return serve_app(app, lifespan="off")


@dataclass
class Probe:
    """What the recording test agent saw: when it started and whether it was cancelled."""

    started: threading.Event = field(default_factory=threading.Event)
    cancelled: threading.Event = field(default_factory=threading.Event)
    contexts: list[TurnContext] = field(default_factory=list)


def sleeper(probe: Probe):
    """An agent that says one thing, then sleeps for a minute unless cancelled."""

    async def agent(ctx: TurnContext) -> AsyncIterator[Event]:
        probe.contexts.append(ctx)
        probe.started.set()
        try:
            yield MessageEvent(text="thinking")
            await asyncio.sleep(60)
            yield MessageEvent(text="too late")
        except asyncio.CancelledError:
            probe.cancelled.set()
            raise

    return agent


async def echo(ctx: TurnContext) -> AsyncIterator[Event]:
    """Echoes the last user text in deltas around one tool call; records what it was given."""
    ECHOED.append(ctx)
    text = ctx.last_user_text()
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta="you said: ")
    yield MessageDelta(id="m1", delta=text)
    yield MessageEnd(id="m1")
    yield ToolCall(id="call_1", name="lookup", input={"q": text})
    yield ToolResult(id="call_1", output="found", is_error=False)
    yield MessageEvent(text="done ✓")
    yield Done(stop_reason="end_turn")


ECHOED: list[TurnContext] = []


async def gap(ctx: TurnContext) -> AsyncIterator[Event]:
    """Two messages with a silent gap of 5 keepalive intervals between them."""
    yield MessageEvent(text="before")
    await asyncio.sleep(KEEPALIVE * 5)
    yield MessageEvent(text="after")
    yield Done(stop_reason="end_turn")


async def boom(ctx: TurnContext) -> AsyncIterator[Event]:
    """Says something, then raises."""
    yield MessageEvent(text="partial")
    raise RuntimeError("provider exploded")
