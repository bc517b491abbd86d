"""Agents the page tests serve next to ``demo``: another agent for the picker, one that sends a file."""

from __future__ import annotations

import asyncio
import base64
import struct
import threading
import zlib
from collections.abc import AsyncIterator

from turnwire.agents import builtin_agents
from turnwire.model import (
    Done,
    Event,
    FileEvent,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ToolCall,
    ToolResult,
)
from turnwire.runtime import Agent, TurnContext


def _png(width: int, height: int) -> bytes:
    """A red-to-orange gradient PNG, made here so the tests need no image file."""
    rows = b"".join(
        b"\x00" + b"".join(bytes((220, 40 + 150 * x // width, 40)) for x in range(width))
        for _ in range(height)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


RED_PNG = "data:image/png;base64," + base64.b64encode(_png(160, 100)).decode()


async def shout(ctx: TurnContext) -> AsyncIterator[Event]:
    """Answers the last user message in capitals."""
    yield MessageEvent(text=f"SHOUTED: {ctx.last_user_text().upper()}")
    yield Done(stop_reason="end_turn")


PAUSE = "⏸"
"""In a message to ``parrot``: the reply stops here until a test sets ``PAUSE_GATE``."""

PAUSE_GATE = threading.Event()


async def parrot(ctx: TurnContext) -> AsyncIterator[Event]:
    """Answers with the last user message, word for word (to show Markdown as a model would send it).

    A message with ``PAUSE`` in it is answered in two deltas: the part before it, then (once a test
    sets ``PAUSE_GATE``, or after 10 s) the rest, so a test can look at a half-written reply.
    """
    text = ctx.last_user_text()
    if PAUSE not in text:
        yield MessageEvent(text=text)
        yield Done(stop_reason="end_turn")
        return
    first, _, rest = text.partition(PAUSE)
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta=first)
    for _ in range(500):
        if PAUSE_GATE.is_set():
            break
        await asyncio.sleep(0.02)
    yield MessageDelta(id="m1", delta=rest)
    yield MessageEnd(id="m1")
    yield Done(stop_reason="end_turn")


async def painter(ctx: TurnContext) -> AsyncIterator[Event]:
    """Answers with an image and a sentence."""
    yield FileEvent(url=RED_PNG, media_type="image/png")
    yield MessageEvent(text="Here is a red picture.")
    yield Done(stop_reason="end_turn")


async def searcher(ctx: TurnContext) -> AsyncIterator[Event]:
    """Calls a ``search`` tool that returns 40 results, then answers in one sentence."""
    query = ctx.last_user_text()
    results = [
        {"rank": i, "title": f"Result {i} for {query}", "url": f"https://example.com/{i}"}
        for i in range(1, 41)
    ]
    yield ToolCall(id="call_search", name="search", input={"query": query})
    yield ToolResult(id="call_search", name="search", output=results)
    yield MessageEvent(text=f"I found {len(results)} results for {query}.")
    yield Done(stop_reason="end_turn")


def more_page_test_agents() -> dict[str, Agent]:
    """The agents of ``page_test_agents`` and more, for tests that need a second server."""
    return {**page_test_agents(), "searcher": searcher}


def page_test_agents() -> dict[str, Agent]:
    return {**builtin_agents(), "shout": shout, "painter": painter, "parrot": parrot}
