"""Fan-out of live task updates: every turn publishes its frames on the task's topic.

``PubSub`` is the interface the server uses; ``LocalPubSub`` serves one process (the default);
``turnwire.conversations.redis_pubsub.RedisPubSub`` shares updates between processes through Redis.

A pub/sub may also answer ``listened(topic)``: ``False`` when nothing published on ``topic`` now
would reach anyone, so a publisher can skip building the frame (the recorder does). Without it,
every frame is built and published.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, Final, Protocol, runtime_checkable

Frame = dict[str, Any]

DEFAULT_BACKLOG: Final = 4096
"""Frames a subscriber may fall behind by before it is cut off (see ``LocalPubSub``)."""


@runtime_checkable
class PubSub(Protocol):
    def publish(self, topic: str, frame: Frame) -> None:
        """Hand ``frame`` to every current subscriber of ``topic``; never blocks, never raises."""

    def subscribe(self, topic: str) -> AsyncIterator[Frame]:
        """Frames published on ``topic`` from now on, in publish order, until the iterator is closed.

        Subscription is in place when this returns (before the first ``__anext__``), so a frame
        published right after cannot be missed — or, for a subscription with an async ``ready()``
        method (a remote broker), once ``ready()`` has returned.
        """


class SubscriberOverflow(Exception):
    """Raised inside a subscriber's iterator when it fell more than its backlog behind."""


class _Subscription:
    __slots__ = ("_hub", "_queue", "_topic", "overflowed")

    def __init__(self, hub: LocalPubSub, topic: str, backlog: int) -> None:
        self._hub = hub
        self._topic = topic
        self._queue: asyncio.Queue[Frame] = asyncio.Queue(backlog)
        self.overflowed = False

    def offer(self, frame: Frame) -> None:
        if self.overflowed:
            return
        try:
            self._queue.put_nowait(frame)
        except asyncio.QueueFull:
            # A gap would corrupt the reader's accumulated text: end its stream instead.
            self.cut()

    def cut(self) -> None:
        """End this reader's stream with ``SubscriberOverflow`` once it has read what is queued
        before it (discarded: frames may be missing after them)."""
        self.overflowed = True
        while not self._queue.empty():
            self._queue.get_nowait()
        self._queue.put_nowait({})

    def __aiter__(self) -> _Subscription:
        return self

    async def __anext__(self) -> Frame:
        frame = await self._queue.get()
        if self.overflowed and not frame:
            raise SubscriberOverflow(f"subscriber of {self._topic!r} fell behind")
        return frame

    async def aclose(self) -> None:
        self._hub._drop(self._topic, self)


class LocalPubSub:
    """In-process fan-out: one bounded queue per subscriber, no per-event sleep.

    A subscriber more than ``backlog`` frames behind gets ``SubscriberOverflow`` instead of a
    silently gapped stream; publishers are never slowed down by a slow reader.
    """

    def __init__(self, backlog: int = DEFAULT_BACKLOG) -> None:
        self.backlog = backlog
        self._topics: dict[str, list[_Subscription]] = {}

    def publish(self, topic: str, frame: Frame) -> None:
        subs = self._topics.get(topic)
        if subs:
            for sub in subs:
                sub.offer(frame)

    def subscribe(self, topic: str) -> _Subscription:
        sub = _Subscription(self, topic, self.backlog)
        self._topics.setdefault(topic, []).append(sub)
        return sub

    def listened(self, topic: str) -> bool:
        """Whether ``topic`` has a reader right now (a frame published now would reach someone)."""
        return topic in self._topics

    def subscribers(self, topic: str) -> int:
        """How many readers ``topic`` has right now."""
        return len(self._topics.get(topic, ()))

    def _drop(self, topic: str, sub: _Subscription) -> None:
        subs = self._topics.get(topic)
        if subs and sub in subs:
            subs.remove(sub)
            if not subs:
                del self._topics[topic]
