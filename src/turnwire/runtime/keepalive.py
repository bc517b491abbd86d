"""Keepalive for event streams: a ``None`` after every interval of silence, items never reordered."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, TypeVar

import anyio

from turnwire.runtime.channel import END, Channel

T = TypeVar("T")

_orphans: set[asyncio.Task[Any]] = set()


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


async def with_keepalive(source: AsyncIterator[T], interval: float | None) -> AsyncGenerator[T | None, None]:
    """Yield what ``source`` yields, plus ``None`` after every ``interval`` seconds of silence.

    Items are never dropped or reordered, and ``source`` is never asked for an item before the
    previous one was taken: one long-lived task pulls on request, so the wait can be timed without
    a task or timer per item. ``interval`` ``None``/``<= 0`` disables the timer. When this
    generator is closed or cancelled, the pull in flight is cancelled (which unwinds ``source``) or
    ``source`` is closed.
    """
    if interval is None or interval <= 0:
        async for item in source:
            yield item
        return
    loop = asyncio.get_running_loop()
    chan = Channel(1)
    ask: asyncio.Future[None] = loop.create_future()
    pulling = False

    async def pull() -> None:
        nonlocal ask, pulling
        step = source.__anext__
        while True:
            await ask
            ask = loop.create_future()
            pulling = True
            try:
                item: Any = await step()
            except StopAsyncIteration:
                chan.close()
                return
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # handed to the consumer, raised there
                item = _Failure(exc)
            finally:
                pulling = False
            await chan.put(item)
            if item.__class__ is _Failure:
                return

    puller = loop.create_task(pull(), name="turnwire-keepalive-pull")
    asked = False
    try:
        while True:
            if not asked:
                ask.set_result(None)
                asked = True
            if not chan.items and not await chan.wait(interval):
                yield None
                continue
            item = chan.take()
            asked = False
            if item is END:
                return
            if item.__class__ is _Failure:
                raise item.exc
            yield item
    finally:
        puller.cancel()
        if pulling:
            # `source` is mid-step inside the puller: cancelling it unwinds the generator. Keep a
            # strong reference until it finishes; the event loop only holds weak ones.
            _orphans.add(puller)
            puller.add_done_callback(_forget)
        else:
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()


def _forget(task: asyncio.Future[Any]) -> None:
    _orphans.discard(task)
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log "never retrieved"
