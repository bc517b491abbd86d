"""``RedisPubSub``: live task updates shared by every server process through Redis.

Plain ``PUBLISH``/``SUBSCRIBE`` on one channel per task (``turnwire:task:{id}``), not Streams: a
task stream only ever shows frames from the moment a reader connects (there is no replay to keep),
so a channel costs Redis no memory, needs no trimming, and delivers one publisher's frames in
order. Each process holds ONE subscriber connection, subscribed to the channels its own readers
watch (reference counted), and fans frames out to them locally with the same bounded queues and
overflow rule as ``LocalPubSub``. Publishing never blocks a turn: frames queue up and one sender
task pipelines them to Redis in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import Any, Final

import orjson
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from turnwire.conversations.pubsub import DEFAULT_BACKLOG, Frame, LocalPubSub, _Subscription

log = logging.getLogger("turnwire.conversations.pubsub")

PREFIX: Final = "turnwire:task:"
MAX_PENDING: Final = 100_000
"""Frames waiting for Redis at most; beyond that (Redis down) new frames are dropped and logged."""


class RedisSubscription(_Subscription):
    """A local reader of one topic; ``await ready()`` returns once Redis confirmed the channel."""

    __slots__ = ("_ready",)

    def __init__(self, hub: RedisPubSub, topic: str, backlog: int, ready: asyncio.Future[None]) -> None:
        super().__init__(hub, topic, backlog)
        self._ready = ready

    async def ready(self) -> None:
        await asyncio.shield(self._ready)


class RedisPubSub(LocalPubSub):
    """``PubSub`` over Redis (``redis://host:port/db``). Call ``await start()`` before use and
    ``await close()`` at the end (the app lifespan does both when ``TURNWIRE_REDIS_URL`` is set)."""

    def __init__(self, url: str, backlog: int = DEFAULT_BACKLOG) -> None:
        super().__init__(backlog)
        self.url = url
        self._client: aioredis.Redis = client_for(url)
        self._ps: Any = None
        self._outbox: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue(MAX_PENDING)
        self._commands: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._pending: dict[str, deque[asyncio.Future[None]]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._dropped = 0

    @property
    def client(self) -> aioredis.Redis:
        """The Redis client (shared with the turn logs, ``redis_turnlogs``)."""
        return self._client

    async def start(self) -> None:
        """Connect (raises if Redis is unreachable) and start the sender, reader and subscriber."""
        await self._client.ping()
        self._ps = self._client.pubsub()
        # A channel of our own, so the subscriber connection exists before any reader comes.
        await self._ps.subscribe(f"turnwire:control:{id(self)}")
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(work()) for work in (self._send, self._read, self._command)]

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        if self._ps is not None:
            with contextlib.suppress(Exception):
                await self._ps.aclose()
        await self._client.aclose()

    # ----------------------------------------------------------------- PubSub
    def publish(self, topic: str, frame: Frame) -> None:
        try:
            self._outbox.put_nowait((PREFIX + topic, orjson.dumps(frame)))
        except asyncio.QueueFull:
            self._dropped += 1
            if self._dropped == 1 or self._dropped % 10_000 == 0:
                log.error("Redis is not keeping up: %d task update(s) dropped", self._dropped)

    def listened(self, topic: str) -> bool:
        """Always: a reader of ``topic`` may be subscribed through another process."""
        return True

    def subscribe(self, topic: str) -> RedisSubscription:
        first = self.subscribers(topic) == 0
        if first:
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._pending.setdefault(topic, deque()).append(ready)
            self._commands.put_nowait(("subscribe", topic))
        else:
            pending = self._pending.get(topic)
            ready = pending[-1] if pending else _done()
        sub = RedisSubscription(self, topic, self.backlog, ready)
        self._topics.setdefault(topic, []).append(sub)
        return sub

    def _drop(self, topic: str, sub: _Subscription) -> None:
        had = self.subscribers(topic)
        super()._drop(topic, sub)
        if had and not self.subscribers(topic):
            self._commands.put_nowait(("unsubscribe", topic))

    # ----------------------------------------------------------------- background work
    async def _send(self) -> None:
        backoff, failing = 0.05, False
        batch: list[tuple[str, bytes]] = []
        while True:
            if not batch:
                batch.append(await self._outbox.get())
            while not self._outbox.empty() and len(batch) < 512:
                batch.append(self._outbox.get_nowait())
            try:
                pipe = self._client.pipeline(transaction=False)
                for channel, data in batch:
                    pipe.publish(channel, data)
                await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # Kept and sent again once Redis answers (a stop signal must not be lost to a
                # Redis restart); the outbox bounds what waits meanwhile.
                if not failing:
                    log.warning("publishing task updates to Redis failed (%s); retrying", exc)
                    failing = True
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 1.0)
                continue
            if failing:
                log.warning("task updates reach Redis again")
                failing = False
            batch, backoff = [], 0.05

    async def _command(self) -> None:
        while True:
            action, topic = await self._commands.get()
            # A topic that changed its mind since (a reader came or went) needs no round trip.
            if (action == "subscribe") != bool(self.subscribers(topic)):
                if action == "subscribe":
                    self._resolve(topic)
                continue
            try:
                await getattr(self._ps, action)(PREFIX + topic)
            except Exception:
                log.exception("Redis %s %s failed", action, topic)
                if action == "subscribe":
                    self._resolve(topic, failed=True)

    async def _read(self) -> None:
        deliver = super().publish
        while True:
            try:
                message = await self._ps.get_message(timeout=1.0)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("reading task updates from Redis failed")
                self._cut_all()
                await asyncio.sleep(0.5)
                continue
            if message is None:
                continue
            kind, channel = message["type"], message["channel"]
            if isinstance(channel, bytes):
                channel = channel.decode()
            if not channel.startswith(PREFIX):
                continue
            topic = channel[len(PREFIX) :]
            if kind == "message":
                deliver(topic, orjson.loads(message["data"]))
            elif kind == "subscribe":
                if self._pending.get(topic):
                    self._resolve(topic)
                else:
                    # The client reconnected and subscribed again by itself (Redis restarted):
                    # frames published meanwhile are lost, so its readers end, not show a gap.
                    for sub in self._topics.get(topic, ()):
                        sub.cut()

    def _resolve(self, topic: str, *, failed: bool = False) -> None:
        pending = self._pending.get(topic)
        if not pending:
            return
        future = pending.popleft()
        if not pending:
            del self._pending[topic]
        if not future.done():
            if failed:
                future.set_exception(ConnectionError(f"could not subscribe to {topic!r} on Redis"))
            else:
                future.set_result(None)

    def _cut_all(self) -> None:
        # Frames may have been lost with the connection: end every reader rather than show a gap.
        for subs in self._topics.values():
            for sub in subs:
                sub.cut()


SOCKET_TIMEOUT: Final = 10.0
"""Seconds a Redis command may take before its connection is given up (blocking reads wait
``redis_turnlogs.READ_SLICE`` at most, well under it)."""


def client_for(url: str) -> aioredis.Redis:
    """A client that rides out a Redis restart: a command whose connection broke (the first one
    on each old connection after a restart) is retried on a new one with a short backoff, and idle
    connections are checked before use."""
    retry = Retry(ExponentialBackoff(cap=1.0, base=0.05), retries=8)
    return aioredis.Redis.from_url(
        url,
        socket_timeout=SOCKET_TIMEOUT,
        socket_connect_timeout=SOCKET_TIMEOUT,
        retry=retry,
        retry_on_error=[RedisConnectionError, RedisTimeoutError, OSError],
        health_check_interval=15,
    )


def _done() -> asyncio.Future[None]:
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    future.set_result(None)
    return future
