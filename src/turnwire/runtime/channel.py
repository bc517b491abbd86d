"""A bounded single-producer, single-consumer channel between the agent task and the stream.

Lighter than ``asyncio.Queue`` (no waiter deques, no task-done accounting) and with one thing the
queue lacks: ``close`` appends an end marker even when the channel is full, so the consumer always
learns that the producer is gone, however it ended.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any, Final

END: Final = object()
"""The marker ``close`` appends; ``get`` returns it after every item put before it."""


class Channel:
    __slots__ = ("_deadline", "_getter", "_limit", "_putter", "_timer", "closed", "items")

    def __init__(self, limit: int = 64) -> None:
        self.items: deque[Any] = deque()
        """What is held, oldest first. Read it (a cheap emptiness test); change it only through
        the methods, which wake the other side."""
        self._limit = limit
        self._getter: asyncio.Future[None] | None = None
        self._putter: asyncio.Future[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._deadline = 0.0
        self.closed = False

    def __len__(self) -> int:
        return len(self.items)

    async def put(self, item: Any) -> None:
        """Append ``item``, waiting while the channel holds ``limit`` items."""
        while len(self.items) >= self._limit:
            self._putter = asyncio.get_running_loop().create_future()
            try:
                await self._putter
            finally:
                self._putter = None
        self.items.append(item)
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    def offer(self, item: Any) -> bool:
        """Append ``item`` if there is room (``True``); ``False``, changing nothing, if full."""
        if len(self.items) >= self._limit:
            return False
        self.items.append(item)
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)
        return True

    def close(self) -> None:
        """Append ``END`` (once), regardless of the limit, and wake the consumer."""
        if self.closed:
            return
        self.closed = True
        self.items.append(END)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    async def get(self) -> Any:
        """The oldest item, waiting while there is none."""
        while not self.items:
            self._getter = asyncio.get_running_loop().create_future()
            try:
                await self._getter
            finally:
                self._getter = None
        return self.take()

    async def wait(self, timeout: float) -> bool:
        """``True`` once the channel holds an item, ``False`` when ``timeout`` seconds pass first.

        Takes nothing. Costs no timer while items are waiting; an empty channel reuses one timer
        across waits (it re-arms itself for the latest deadline), so a busy stream with a timeout
        pays a clock read per wait, not a timer.
        """
        if self.items:
            return True
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + timeout
        if self._timer is None:
            self._timer = loop.call_at(self._deadline, self._ring)
        getter = self._getter = loop.create_future()
        try:
            await getter
        finally:
            self._getter = None
        return bool(self.items)

    def _ring(self) -> None:
        getter = self._getter
        if getter is None or getter.done():
            self._timer = None  # nobody is waiting: the next wait arms a new timer
            return
        loop = getter.get_loop()
        if loop.time() >= self._deadline:
            self._timer = None
            getter.set_result(None)
        else:  # armed for an earlier wait that has since been answered
            self._timer = loop.call_at(self._deadline, self._ring)

    def take(self) -> Any:
        """The oldest item, without waiting; only call when ``len(channel) > 0``."""
        item = self.items.popleft()
        putter = self._putter
        if putter is not None and not putter.done():
            putter.set_result(None)
        return item

    def drain(self) -> list[Any]:
        """Take every item still held, without the end marker."""
        items = [item for item in self.items if item is not END]
        self.items.clear()
        putter = self._putter
        if putter is not None and not putter.done():
            putter.set_result(None)
        return items
