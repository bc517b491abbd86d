"""Turn chunk logs in Redis streams, so any worker can replay a turn another one runs.

A running turn of conversation ``k`` sets ``turnwire:live:{k}`` to ``"{turn id} {wire}"``; its
chunks go to the stream ``turnwire:turnlog:{turn id}`` (``XADD``: an opening entry, then one entry
per chunk with its index ``i`` and data ``d``), closed by an entry with field ``end``. The live key
goes when the turn ends; the stream expires a minute later.

Both are a *lease*: they expire ``LIVE_TTL`` seconds after the worker running the turn last renewed
them (every ``RENEW_EVERY`` s), so the turn of a worker that died (SIGKILL) stops being "live"
within seconds, and its followers learn it ended without its end (``TurnLost``). When Redis comes
back empty (a restart) or a write failed, the worker rewrites the turn's whole log from its own
copy (``rebuild``): a chunk's index lets a follower skip what it already has, so every chunk still
reaches it once, in order. Writes never block the turn: one sender task syncs every turn's log.

A follower's blocking read waits ``READ_SLICE`` s at a time, well under the client's socket timeout
(a read blocked longer than that timeout is cut by the client itself, not by Redis).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from typing import Any, Final

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from turnwire.observability.work_spans import record_span
from turnwire.runtime.live import TurnLost

log = logging.getLogger("turnwire.conversations.turnlogs")

LIVE: Final = "turnwire:live:"
LOG: Final = "turnwire:turnlog:"
ENDING: Final = "turnwire:ending:"
LIVE_TTL: Final = 6.0
"""Seconds a live key and its log outlive their worker's last renewal."""
RENEW_EVERY: Final = 2.0
ENDED_TTL: Final = 60
READ_SLICE: Final = 1.0
LOST_GRACE: Final = 2 * RENEW_EVERY + 1
"""Seconds a follower waits for a missing log to come back (a worker rewrites it after a Redis
restart within ``RENEW_EVERY``) before it gives the turn up as lost."""
MAX_BATCH: Final = 256
"""Turns synced per pipeline."""


class _Mirrored:
    """A turn this process runs, as mirrored: its chunks and how far Redis has them."""

    __slots__ = (
        "chunks",
        "ended",
        "ending",
        "key",
        "rebuild",
        "registered",
        "sent",
        "traced",
        "turn_id",
        "value",
    )

    def __init__(self, key: str, turn_id: str, wire: str) -> None:
        self.key, self.turn_id = key, turn_id
        self.value = f"{turn_id} {wire}"
        self.chunks: list[bytes] = []
        self.sent = 0  # chunks Redis has
        self.registered = False  # the live key and the opening entry are written
        self.rebuild = False  # Redis may have lost or half-written the log: write it anew
        self.ended = False
        self.ending = 0  # 1: to mark as ending (``ending``), 2: marked
        self.traced: tuple[Any, Any] | None = None  # (tracer, context): its end's write is a span


class RedisTurnLogs:
    """``TurnLogMirror`` on a ``redis.asyncio`` client (the one ``RedisPubSub`` holds)."""

    def __init__(
        self,
        client: Any,
        *,
        renew_every: float = RENEW_EVERY,
        live_ttl: float = LIVE_TTL,
        lost_grace: float = LOST_GRACE,
    ) -> None:
        self._client = client
        self.renew_every, self.live_ttl, self.lost_grace = renew_every, live_ttl, lost_grace
        self._turns: dict[str, _Mirrored] = {}
        self._dirty: dict[str, _Mirrored] = {}
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._failing = False
        self._checks: list[tuple[_Mirrored, int]] = []  # (turn, index of its EXISTS in a pipeline)

    # ----------------------------------------------------------------- the running side
    def _mark(self, turn: _Mirrored) -> None:
        if not self._tasks or any(t.done() for t in self._tasks):
            self._start()
        self._dirty[turn.turn_id] = turn
        self._wake.set()

    def _start(self) -> None:
        for task in self._tasks:
            task.cancel()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._send()), loop.create_task(self._renew())]

    def open(self, key: str, turn_id: str, wire: str) -> None:
        turn = _Mirrored(key, turn_id, wire)
        self._turns[turn_id] = turn
        self._mark(turn)

    def append(self, key: str, turn_id: str, data: bytes) -> None:
        turn = self._turns.get(turn_id)
        if turn is not None:
            turn.chunks.append(data)
            self._mark(turn)

    def close(self, key: str, turn_id: str) -> None:
        turn = self._turns.get(turn_id)
        if turn is not None:
            turn.ended = True
            self._mark(turn)

    def trace_close(self, turn_id: str, work: tuple[Any, Any]) -> None:
        """The turn is traced (``work``: its tracer and context): the write of its end to Redis
        will be a span of it (``redis turn_log``), from the pipeline's send to its answer."""
        turn = self._turns.get(turn_id)
        if turn is not None:
            turn.traced = work

    def ending(self, key: str, turn_id: str) -> None:
        """The turn sent its last event and is being stored: a turn on ``key`` starting on
        another worker waits for its end (``settled``) before it reads the conversation."""
        turn = self._turns.get(turn_id)
        if turn is not None and not turn.ending:
            turn.ending = 1
            self._mark(turn)

    def _queue(self, pipe: Any, turn: _Mirrored) -> tuple[int, bool, bool]:
        """Add what Redis lacks of ``turn`` to ``pipe``; returns (chunks it then has, ended,
        marked as ending)."""
        stream, ttl = LOG + turn.turn_id, int(self.live_ttl * 1000)
        start = turn.sent
        if turn.registered and not turn.rebuild:
            # Checked first: a Redis that came back empty must not get only the log's tail.
            self._checks.append((turn, len(pipe.command_stack)))
            pipe.exists(stream)
        if turn.rebuild:
            start = 0
            pipe.delete(stream)
            # NX: a newer turn of the conversation may own the key by now.
            pipe.set(LIVE + turn.key, turn.value, px=ttl, nx=True)
            pipe.xadd(stream, {"o": b"1"})
        elif not turn.registered:
            pipe.set(LIVE + turn.key, turn.value, px=ttl)
            pipe.xadd(stream, {"o": b"1"})
        chunks, upto = turn.chunks, len(turn.chunks)
        for i in range(start, upto):
            pipe.xadd(stream, {"i": i, "d": chunks[i]})
        marking = turn.ending == 1
        if marking:
            pipe.set(ENDING + turn.key, turn.turn_id, ex=ENDED_TTL)
        ended = turn.ended
        if ended:
            pipe.xadd(stream, {"end": b"1", "i": upto})
            pipe.expire(stream, ENDED_TTL)
            pipe.eval(_DELETE_IF, 2, LIVE + turn.key, ENDING + turn.key, turn.turn_id + " ")
        elif turn.rebuild or not turn.registered:
            pipe.pexpire(stream, ttl)
        return upto, ended, marking

    async def _send(self) -> None:
        backoff = 0.05
        while True:
            if not self._dirty:
                self._wake.clear()
                await self._wake.wait()
            batch: list[_Mirrored] = []
            while self._dirty and len(batch) < MAX_BATCH:
                batch.append(self._dirty.pop(next(iter(self._dirty))))
            pipe = self._client.pipeline(transaction=False)
            self._checks = []
            plans = [self._queue(pipe, turn) for turn in batch]
            traced = [turn for turn in batch if turn.traced is not None and turn.ended]
            sent_at = time.time_ns() if traced else 0
            try:
                results = await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if not self._failing:
                    log.warning("writing turn logs to Redis failed (%s); retrying", exc)
                    self._failing = True
                # What the pipeline did is unknown: write those logs anew once Redis answers.
                for turn in batch:
                    turn.rebuild = True
                    self._dirty.setdefault(turn.turn_id, turn)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 1.0)
                continue
            for turn in traced:
                tracer, context = turn.traced  # type: ignore[misc]
                attributes = {
                    "db.system.name": "redis",
                    "db.operation.name": "pipeline",
                    "turnwire.turns": len(batch),
                }
                record_span(tracer, "redis turn_log", attributes, sent_at, time.time_ns(), parent=context)
                turn.traced = None
            if self._failing:
                log.warning("turn logs reach Redis again")
                self._failing = False
            backoff = 0.05
            for turn, at in self._checks:
                if not results[at]:
                    turn.rebuild = True  # Redis lost the log (a restart): write it anew
                    self._mark(turn)
            for turn, (upto, ended, marked) in zip(batch, plans, strict=True):
                turn.sent, turn.registered = upto, True
                if marked:
                    turn.ending = 2
                if turn.turn_id not in self._dirty:
                    turn.rebuild = False
                if ended and not turn.rebuild and self._turns.get(turn.turn_id) is turn:
                    del self._turns[turn.turn_id]
                    self._dirty.pop(turn.turn_id, None)

    async def _renew(self) -> None:
        """Extend the lease of every running turn; rebuild those Redis lost (it restarted)."""
        while True:
            await asyncio.sleep(self.renew_every)
            turns = [t for t in self._turns.values() if t.registered and not t.ended and not t.rebuild]
            if not turns:
                continue
            pipe = self._client.pipeline(transaction=False)
            ttl = int(self.live_ttl * 1000)
            for turn in turns:
                pipe.eval(_RENEW, 2, LIVE + turn.key, LOG + turn.turn_id, turn.value, ttl)
            try:
                found = await pipe.execute()
            except asyncio.CancelledError:
                raise
            except Exception:
                continue  # Redis is away: the next renewal finds out what it lost
            for turn, ok in zip(turns, found, strict=True):
                if ok == 0 and not turn.ended:
                    turn.rebuild = True
                    self._mark(turn)

    # ----------------------------------------------------------------- the reading side
    async def running(self, key: str) -> tuple[str, str] | None:
        """(turn id, wire) of the turn of ``key`` running on some live worker, if any."""
        value = await self._client.get(LIVE + key)
        if value is None:
            return None
        turn_id, _, wire = (value.decode() if isinstance(value, bytes) else value).partition(" ")
        return turn_id, wire

    async def ending_turn(self, key: str) -> str | None:
        """The turn of ``key`` that sent its last event and is not stored yet, if any (``ending``)."""
        value = await self._client.get(ENDING + key)
        return None if value is None else value.decode() if isinstance(value, bytes) else value

    async def follow(self, turn_id: str, keepalive: float | None) -> AsyncIterator[bytes | None]:
        """The turn's chunks from its first, then live ones until its end; ``None`` after
        ``keepalive`` seconds without one. Raises ``TurnLost`` when the turn ended without its end
        (its log expired: its worker died), or Redis stayed away longer than ``lost_grace`` s."""
        client, stream = self._client, LOG + turn_id
        last, position = "0-0", 0
        clock = time.monotonic
        quiet_since = clock()
        trouble_since: float | None = None  # the log missing, or Redis unreachable, since
        while True:
            try:
                answer = await client.xread({stream: last}, block=int(READ_SLICE * 1000), count=512)
                if not answer:
                    if await client.exists(stream):
                        trouble_since = None  # quiet, not gone
                    else:
                        trouble_since = trouble_since or clock()
                        last = "0-0"  # when it is rewritten, it is read from its start
            except (RedisConnectionError, RedisTimeoutError, OSError):
                answer = None
                trouble_since = trouble_since or clock()
                last = "0-0"  # Redis may come back empty and the log be rewritten
                await asyncio.sleep(0.1)
            if trouble_since is not None and clock() - trouble_since > self.lost_grace:
                raise TurnLost(f"turn {turn_id} ended without its end")
            if not answer:
                if keepalive and clock() - quiet_since >= keepalive:
                    quiet_since = clock()
                    yield None
                continue
            gap = False
            for _, entries in answer:
                for entry_id, fields in entries:
                    last = entry_id
                    index = fields.get(b"i")
                    if index is None or int(index) < position:
                        continue  # the opening entry, or a chunk already read before a rebuild
                    if int(index) > position:
                        gap = True  # Redis lost the log and has only its tail: wait for the rewrite
                        break
                    if b"end" in fields:
                        return
                    position += 1
                    quiet_since, trouble_since = clock(), None
                    yield fields[b"d"]
                if gap:
                    break
            if gap:
                trouble_since = trouble_since or clock()
                last = "0-0"
                await asyncio.sleep(0.05)

    async def aclose(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []


_DELETE_IF: Final = (  # the live and ending keys, if they still name this turn (ARGV[1] = "<turn id> ")
    "local v = redis.call('get', KEYS[1]) "
    "if v and string.sub(v, 1, string.len(ARGV[1])) == ARGV[1] then redis.call('del', KEYS[1]) end "
    "local e = redis.call('get', KEYS[2]) "
    "if e and e .. ' ' == ARGV[1] then redis.call('del', KEYS[2]) end "
    "return 0"
)
_RENEW: Final = (  # 1: renewed; 0: Redis lost the key or the log (rebuild); -1: another turn owns the key
    "if redis.call('exists', KEYS[2]) == 0 then return 0 end "
    "redis.call('pexpire', KEYS[2], ARGV[2]) "
    "local v = redis.call('get', KEYS[1]) "
    "if not v then return 0 end "
    "if v ~= ARGV[1] then return -1 end "
    "redis.call('pexpire', KEYS[1], ARGV[2]) return 1"
)
