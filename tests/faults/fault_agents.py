"""Agents the fault tests serve through ``turnwire serve --agent`` (imported from this folder)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.runtime import TurnContext


def word(i: int) -> str:
    return f"w{i} "


def _args(ctx: TurnContext, default: str) -> list[str]:
    return (ctx.last_user_text().strip() or default).split()


async def paced(ctx: TurnContext) -> AsyncIterator[Event]:
    """``"<words> <seconds>"``: one message, a word every ``seconds``."""
    count, pause = _args(ctx, "20 0.05")
    yield MessageStart(id="m1")
    for i in range(int(count)):
        yield MessageDelta(id="m1", delta=word(i))
        await asyncio.sleep(float(pause))
    yield MessageEnd(id="m1")


async def steps(ctx: TurnContext) -> AsyncIterator[Event]:
    """``"<n> <seconds>"``: ``n`` whole messages ``step k``, then ``seconds`` of silence when no
    message is open (a tool running, a model thinking), then a last one ``step n``."""
    count, pause = _args(ctx, "2 1")
    for k in range(int(count) + 1):
        if k == int(count):
            await asyncio.sleep(float(pause))
        yield MessageStart(id=f"m{k}")
        yield MessageDelta(id=f"m{k}", delta=f"step {k}")
        yield MessageEnd(id=f"m{k}")


async def quiet(ctx: TurnContext) -> AsyncIterator[Event]:
    """``"<seconds>"``: ``before``, ``seconds`` of silence inside the message, ``after``."""
    (pause,) = _args(ctx, "1")
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta="before ")
    await asyncio.sleep(float(pause))
    yield MessageDelta(id="m1", delta="after")
    yield MessageEnd(id="m1")
