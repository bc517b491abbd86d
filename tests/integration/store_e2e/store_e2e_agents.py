"""Agents the store end-to-end tests serve through ``turnwire serve --agent``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.runtime import TurnContext

WORDS = 400
INTERVAL = 0.01


def word(i: int) -> str:
    return f"w{i} "


async def slow(ctx: TurnContext) -> AsyncIterator[Event]:
    """One long message, streamed a word every 10 ms (4 s in all)."""
    yield MessageStart(id="m1")
    for i in range(WORDS):
        yield MessageDelta(id="m1", delta=word(i))
        await asyncio.sleep(INTERVAL)
    yield MessageEnd(id="m1")


async def long(ctx: TurnContext) -> AsyncIterator[Event]:
    """Like ``slow``, with as many words as the user's message says (``"1500"`` -> 15 s)."""
    text = ctx.last_user_text().strip()
    words = int(text) if text.isdigit() else WORDS
    yield MessageStart(id="m1")
    for i in range(words):
        yield MessageDelta(id="m1", delta=word(i))
        await asyncio.sleep(INTERVAL)
    yield MessageEnd(id="m1")


async def paced(ctx: TurnContext) -> AsyncIterator[Event]:
    """``"<words> <seconds>"``: one message, a word every ``seconds`` (slower than a flush)."""
    count, _, pause = ctx.last_user_text().strip().partition(" ")
    yield MessageStart(id="m1")
    for i in range(int(count)):
        yield MessageDelta(id="m1", delta=word(i))
        await asyncio.sleep(float(pause))
    yield MessageEnd(id="m1")


async def gap(ctx: TurnContext) -> AsyncIterator[Event]:
    """``before``, half a second of silence (keepalives), ``after``."""
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta="before")
    await asyncio.sleep(0.5)
    yield MessageDelta(id="m1", delta="after")
    yield MessageEnd(id="m1")
