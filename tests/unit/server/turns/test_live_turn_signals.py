"""The app context's live turns: stop signals travel on a pub/sub only when it reaches other
processes; with the in-process one a turn subscribes to nothing and a stop still reaches it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from turnwire.conversations.pubsub import LocalPubSub
from turnwire.runtime.live import STOP_TOPIC
from turnwire.server.app import app_context

pytestmark = pytest.mark.anyio


class Run:
    def __init__(self) -> None:
        self.cancelled = asyncio.Event()

    def cancel(self) -> None:
        self.cancelled.set()

    async def body(self) -> AsyncIterator[bytes]:
        yield b"a"
        await self.cancelled.wait()
        yield b"cancelled"


class SharedPubSub(LocalPubSub):
    """Stands for a pub/sub shared between processes (Redis): not exactly the in-process kind."""


def _turn(pubsub: Any) -> tuple[Any, Run, Any]:
    ctx = app_context({}, default_agent="x")
    ctx.pubsub = pubsub
    run = Run()
    live = ctx.turns.begin("s", "t1", run, run.body(), detached=True)
    return ctx, run, live


async def test_with_the_in_process_pubsub_a_turn_subscribes_to_nothing_and_stop_reaches_it() -> None:
    pubsub = LocalPubSub()
    ctx, run, live = _turn(pubsub)
    reader = live.follow()
    assert await reader.__anext__() == b"a"
    await asyncio.sleep(0.01)
    assert pubsub.subscribers(STOP_TOPIC + "s") == 0
    assert ctx.turns.stop("s") is True
    await asyncio.wait_for(run.cancelled.wait(), 5)
    assert await reader.__anext__() == b"cancelled"
    await reader.aclose()


async def test_with_a_shared_pubsub_a_turn_watches_for_stop_signals_from_other_processes() -> None:
    pubsub = SharedPubSub()
    _, run, live = _turn(pubsub)
    reader = live.follow()
    await reader.__anext__()
    for _ in range(100):
        if pubsub.subscribers(STOP_TOPIC + "s"):
            break
        await asyncio.sleep(0.01)
    pubsub.publish(STOP_TOPIC + "s", {"type": "stop"})  # as another worker's stop would
    await asyncio.wait_for(run.cancelled.wait(), 5)
    await reader.aclose()
