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
    __slots__ = ("_getter", "_items", "_limit", "_putter", "closed")

    def __init__(self, limit: int = 64) -> None:
        self._items: deque[Any] = deque()
        self._limit = limit
        self._getter: asyncio.Future[None] | None = None
        self._putter: asyncio.Future[None] | None = None
        self.closed = False

    def __len__(self) -> int:
        return len(self._items)

    async def put(self, item: Any) -> None:
        """Append ``item``, waiting while the channel holds ``limit`` items."""
        while len(self._items) >= self._limit:
            self._putter = asyncio.get_running_loop().create_future()
            try:
                await self._putter
            finally:
                self._putter = None
        self._items.append(item)
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    def close(self) -> None:
        """Append ``END`` (once), regardless of the limit, and wake the consumer."""
        if self.closed:
            return
        self.closed = True
        self._items.append(END)
        getter = self._getter
        if getter is not None and not getter.done():
            getter.set_result(None)

    async def get(self) -> Any:
        """The oldest item, waiting while there is none."""
        while not self._items:
            self._getter = asyncio.get_running_loop().create_future()
            try:
                await self._getter
            finally:
                self._getter = None
        return self.take()

    def take(self) -> Any:
        """The oldest item, without waiting; only call when ``len(channel) > 0``."""
        item = self._items.popleft()
        putter = self._putter
        if putter is not None and not putter.done():
            putter.set_result(None)
        return item

    def drain(self) -> list[Any]:
        """Take every item still held, without the end marker."""
        items = [item for item in self._items if item is not END]
        self._items.clear()
        putter = self._putter
        if putter is not None and not putter.done():
            putter.set_result(None)
        return items
