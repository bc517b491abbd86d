"""Turn chunk logs in Redis streams, so any worker can replay a turn another one runs.

A running turn of conversation ``k`` sets ``turnwire:live:{k}`` to its turn id; its chunks go to
the stream ``turnwire:turnlog:{turn id}`` (``XADD``, one entry per chunk, field ``d``), closed by an
entry with field ``end``. The live key goes when the turn ends; the stream expires a minute later.
A reader on any worker ``XREAD``s the stream from its start, then blocks for new entries: every
chunk once, in order. Writes never block the turn: one sender task pipelines them in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any, Final

log = logging.getLogger("turnwire.conversations.turnlogs")

LIVE: Final = "turnwire:live:"
LOG: Final = "turnwire:turnlog:"
LIVE_TTL: Final = 24 * 3600
"""Seconds a live key outlives a process that died without removing it."""
ENDED_TTL: Final = 60
MAX_PENDING: Final = 100_000


class RedisTurnLogs:
    """``TurnLogMirror`` on a ``redis.asyncio`` client (the one ``RedisPubSub`` holds)."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self._outbox: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue(MAX_PENDING)
        self._sender: asyncio.Task[None] | None = None

    def _put(self, *command: Any) -> None:
        if self._sender is None or self._sender.done():
            self._sender = asyncio.get_running_loop().create_task(self._send())
        try:
            self._outbox.put_nowait(command)
        except asyncio.QueueFull:
            log.error("Redis is not keeping up with turn logs: a chunk was dropped")

    def open(self, key: str, turn_id: str, wire: str) -> None:
        self._put("set", LIVE + key, f"{turn_id} {wire}", LIVE_TTL)

    def append(self, key: str, turn_id: str, data: bytes) -> None:
        self._put("xadd", LOG + turn_id, {"d": data})

    def close(self, key: str, turn_id: str) -> None:
        self._put("xadd", LOG + turn_id, {"end": b"1"})
        self._put("expire", LOG + turn_id, ENDED_TTL)
        self._put("delete_if", LIVE + key, turn_id + " ")

    async def _send(self) -> None:
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < 512:
                batch.append(self._outbox.get_nowait())
            try:
                pipe = self._client.pipeline(transaction=False)
                for command in batch:
                    name, *args = command
                    if name == "set":
                        pipe.set(args[0], args[1], ex=args[2])
                    elif name == "xadd":
                        pipe.xadd(args[0], args[1])
                    elif name == "expire":
                        pipe.expire(args[0], args[1])
                    elif name == "delete_if":
                        # Only the turn that set it: a newer turn of the conversation may own it now.
                        pipe.eval(_DELETE_IF, 1, args[0], args[1])
                await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("writing %d turn log command(s) to Redis failed", len(batch))
                await asyncio.sleep(0.5)

    async def running(self, key: str) -> tuple[str, str] | None:
        """(turn id, wire) of the turn of ``key`` running on some worker, if any."""
        value = await self._client.get(LIVE + key)
        if value is None:
            return None
        turn_id, _, wire = (value.decode() if isinstance(value, bytes) else value).partition(" ")
        return turn_id, wire

    async def follow(self, turn_id: str, keepalive: float | None) -> AsyncIterator[bytes | None]:
        """The turn's chunks from its first, then live ones until its end; ``None`` after
        ``keepalive`` seconds without one."""
        stream = LOG + turn_id
        last = "0-0"
        block = int((keepalive or 30) * 1000)
        while True:
            answer = await self._client.xread({stream: last}, block=block, count=512)
            if not answer:
                if keepalive:
                    yield None
                elif not await self._client.exists(stream):
                    return  # expired under us: nothing more will come
                continue
            for _, entries in answer:
                for entry_id, fields in entries:
                    last = entry_id
                    if b"end" in fields:
                        return
                    yield fields[b"d"]

    async def aclose(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sender


_DELETE_IF: Final = (  # the live key, if it still names this turn (ARGV[1] = "<turn id> ")
    "local v = redis.call('get', KEYS[1]) "
    "if v and string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then return redis.call('del', KEYS[1]) end "
    "return 0"
)
