"""Running turns by conversation: each turn's chunk log, its readers, resume and stop.

A door hands ``LiveTurns.begin`` its turn's encoded body (bytes, already framed in its wire
format). A task of its own — not the HTTP response — drives the body into the turn's ``ChunkLog``,
and every reader (the response that started the turn, a client that reconnects) follows the log
from its first chunk: a reconnecting client gets every chunk once, in order, then the live ones.

What happens when the last reader goes away is the door's choice:

- ``detached=True`` (a chat page: a reload must not kill the answer): the turn goes on; it ends
  when the agent ends, when it is stopped, or ``idle_timeout`` seconds after its last reader left.
- ``detached=False`` (the Agenta doors, ``message/send``): the turn is cancelled; what it said is
  stored (the run ends with ``stop_reason: cancelled``, the recorder writes the rest).

``LiveTurns.stop(key)`` cancels the turn of a conversation on this process and signals it on the
pub/sub (``stop:<key>``), so the process that runs it — with Redis, any worker — cancels it too.
A log mirror (``TurnLogMirror``, Redis streams) lets any worker replay a turn another one runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Final, Protocol

from turnwire.observability.work_spans import work_span

log = logging.getLogger("turnwire.runtime.live")

STOP_TOPIC: Final = "stop:"
"""Pub/sub topic prefix of stop signals: ``stop:<conversation key>``."""
DEFAULT_IDLE_TIMEOUT: Final = 300.0

_running: set[asyncio.Task[Any]] = set()
_by_turn: dict[str, LiveTurn] = {}
"""Live turns of this process by turn id, for ``turn_ending``."""
LOST_MESSAGE: Final = "the server running this turn stopped before it ended"


class TurnLost(Exception):
    """A turn followed from another process ended without its end (its worker died)."""


def turn_ending(turn_id: str | None) -> None:
    """The recorder's word that turn ``turn_id`` sent its last event and is being stored: other
    workers starting the conversation's next turn wait for its end (``LiveTurns.settled``)."""
    turn = _by_turn.get(turn_id) if turn_id is not None else None
    if turn is None:
        return
    turn.ending = True
    turn._leave()
    ending = getattr(turn.registry.mirror, "ending", None)
    if ending is not None:
        try:
            ending(turn.key, turn.turn_id)
        except Exception:
            log.exception("marking turn %s as ending failed", turn_id)


class ChunkLog:
    """The chunks a turn has sent so far, in order; readers wait for more until it is closed.

    A waiting reader parks on a future of its own (a timer for its timeout): an append wakes the
    readers waiting, and costs nothing more when none is (no event object, no task per wait)."""

    __slots__ = ("_waiters", "chunks", "closed")

    def __init__(self) -> None:
        self.chunks: list[bytes] = []
        self.closed = False
        self._waiters: list[asyncio.Future[None]] = []

    def _notify(self) -> None:
        waiters = self._waiters
        if waiters:
            self._waiters = []
            for waiter in waiters:
                if not waiter.done():
                    waiter.set_result(None)

    def append(self, data: bytes) -> None:
        self.chunks.append(data)
        self._notify()

    def close(self) -> None:
        self.closed = True
        self._notify()

    async def read(self, start: int, timeout: float | None, alarm: Alarm | None = None) -> list[bytes]:
        """The chunks from index ``start``; waits up to ``timeout`` seconds (``None``: as long as it
        takes) for one. ``[]``: none came in time, or the log is closed and read to its end.
        ``alarm``: the reader's own timer, kept across reads (else one timer per wait)."""
        if start >= len(self.chunks) and not self.closed:
            loop = asyncio.get_running_loop()
            wake: asyncio.Future[None] = loop.create_future()
            self._waiters.append(wake)
            if timeout is None:
                await wake
            else:
                timer = None
                if alarm is None:
                    timer = loop.call_later(timeout, _wake, wake)
                else:
                    alarm.arm(loop, timeout, wake)
                try:
                    await wake
                finally:
                    if timer is not None:
                        timer.cancel()
                    if wake in self._waiters:  # timed out: no append took it off the list
                        self._waiters.remove(wake)
        return self.chunks[start:]


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)


class Alarm:
    """A reader's timeout across its waits: one timer, re-armed for the latest deadline when it
    rings early, instead of a timer made and cancelled per wait (a keepalive of 15 s outlives
    hundreds of a cadenced stream's waits)."""

    __slots__ = ("deadline", "timer", "waiter")

    def __init__(self) -> None:
        self.deadline = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.waiter: asyncio.Future[None] | None = None

    def arm(self, loop: asyncio.AbstractEventLoop, timeout: float, waiter: asyncio.Future[None]) -> None:
        """Wake ``waiter`` ``timeout`` seconds from now unless something else wakes it first."""
        self.deadline = loop.time() + timeout
        self.waiter = waiter
        timer = self.timer
        if timer is not None and timer.when() > self.deadline:  # a shorter timeout than before
            timer.cancel()
            timer = None
        if timer is None:
            self.timer = loop.call_at(self.deadline, self._ring, loop)

    def _ring(self, loop: asyncio.AbstractEventLoop) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():
            self.timer = None  # nobody waits: the next wait arms a new timer
        elif loop.time() >= self.deadline:
            self.timer = None
            waiter.set_result(None)
        else:  # armed for an earlier wait that has since been answered
            self.timer = loop.call_at(self.deadline, self._ring, loop)

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        self.waiter = None


class PubSubLike(Protocol):
    def publish(self, topic: str, frame: dict[str, Any]) -> None: ...

    def subscribe(self, topic: str) -> Any: ...


class TurnLogMirror(Protocol):
    """Where a turn's chunks are also kept for other processes (``RedisTurnLogs``)."""

    def open(self, key: str, turn_id: str, wire: str) -> Any: ...

    def append(self, key: str, turn_id: str, data: bytes) -> None: ...

    def close(self, key: str, turn_id: str) -> Any: ...

    async def running(self, key: str) -> tuple[str, str] | None: ...

    def follow(self, turn_id: str, keepalive: float | None) -> AsyncIterator[bytes | None]:
        """Raises ``TurnLost`` when the turn ended without its end."""
        ...


class LiveTurn:
    """One running turn: its log, readers and how it stops (see the module docstring)."""

    def __init__(
        self,
        registry: LiveTurns,
        key: str,
        turn_id: str,
        run: Any,
        *,
        detached: bool,
        idle_timeout: float | None,
        wire: str = "",
    ) -> None:
        self.registry = registry
        self.wire = wire
        """What the log's bytes are (e.g. ``vercel/sse``): a reader re-attaches only in its own."""
        self.key = key
        self.turn_id = turn_id
        self.run = run
        self.detached = detached
        self.idle_timeout = idle_timeout
        self.log = ChunkLog()
        self.readers = 0
        self.stopped = False
        self.ending = False
        """It sent its last event and is being stored (``turn_ending``)."""
        self.task: asyncio.Task[None] | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._leaving: asyncio.Event | None = None  # made only when a turn waits for this one to go

    @property
    def done(self) -> bool:
        return self.log.closed

    def stop(self) -> None:
        """Cancel the turn: its stream ends with ``stop_reason: cancelled`` and its closing frames."""
        if self.stopped or self.log.closed:
            return
        self.stopped = True
        self._leave()
        cancel = getattr(self.run, "cancel", None)
        if cancel is not None:
            cancel()
        elif self.task is not None:
            self.task.cancel()

    def _leave(self) -> None:
        if self._leaving is not None:
            self._leaving.set()

    async def _drive(self, body: AsyncIterator[bytes]) -> None:
        mirror = self.registry.mirror
        watcher = None
        if self.registry.pubsub is not None:
            watcher = asyncio.get_running_loop().create_task(self._watch_stop())
        try:
            if mirror is not None:
                await _quietly(mirror.open(self.key, self.turn_id, self.wire))
                for data in self.log.chunks:  # the opening ``begin`` logged before this task ran
                    mirror.append(self.key, self.turn_id, data)
            async for data in body:
                self.log.append(data)
                if mirror is not None:
                    mirror.append(self.key, self.turn_id, data)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("turn %s of %s failed while streaming", self.turn_id, self.key)
        finally:
            if watcher is not None:
                watcher.cancel()
            self.log.close()
            self._leave()
            if self._idle is not None:
                self._idle.cancel()
            self.registry._finished(self)
            if mirror is not None:
                traced: Any = getattr(mirror, "trace_close", None)
                work = None if traced is None else getattr(self.run, "work_context", None)
                if work is not None:
                    traced(self.turn_id, work)  # the Redis write of the log's end: a span of the turn
                await _quietly(mirror.close(self.key, self.turn_id))

    async def _watch_stop(self) -> None:
        pubsub = self.registry.pubsub
        assert pubsub is not None
        while True:
            sub = pubsub.subscribe(STOP_TOPIC + self.key)
            try:
                async for _ in sub:
                    self.stop()
                    return
                return
            except Exception as exc:
                # Redis went away (the reader is cut): subscribe again, or a stop sent after
                # Redis came back would never reach this turn.
                log.warning("watching stop signals of %s: %s; subscribing again", self.key, exc)
            finally:
                with contextlib.suppress(Exception):
                    await sub.aclose()
            await asyncio.sleep(0.5)

    async def follow(
        self, keepalive: float | None = None, keepalive_bytes: bytes = b""
    ) -> AsyncGenerator[bytes, None]:
        """The turn's chunks from its first one, then live ones until it ends. Every ``keepalive``
        seconds without a chunk, ``keepalive_bytes`` (if any). Leaving early is the door's
        choice of what happens to the turn (``detached``)."""
        self.readers += 1
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        read = self.log.read
        alarm = Alarm() if keepalive is not None else None
        position = 0
        try:
            while True:
                chunks = await read(position, keepalive, alarm)
                if chunks:
                    position += len(chunks)
                    yield chunks[0] if len(chunks) == 1 else b"".join(chunks)
                elif self.log.closed:
                    return
                elif keepalive_bytes:
                    yield keepalive_bytes
        finally:
            if alarm is not None:
                alarm.cancel()
            self.readers -= 1
            if self.readers == 0 and not self.log.closed:
                self._left()

    def _left(self) -> None:
        if not self.detached:
            self.stop()
        elif self.idle_timeout is not None and self.idle_timeout >= 0:
            self._idle = asyncio.get_running_loop().call_later(self.idle_timeout, self._idle_out)

    def _idle_out(self) -> None:
        if self.readers == 0:
            log.info("stopping turn %s of %s: no reader for %s s", self.turn_id, self.key, self.idle_timeout)
            self.stop()


class LiveTurns:
    """The turns running on this process, by conversation key (a session id)."""

    def __init__(self, pubsub: PubSubLike | None = None, mirror: TurnLogMirror | None = None) -> None:
        self.pubsub = pubsub
        self.mirror = mirror
        self._turns: dict[str, LiveTurn] = {}

    def __len__(self) -> int:
        return len(self._turns)

    def get(self, key: str) -> LiveTurn | None:
        """The conversation's running turn on this process, if any."""
        return self._turns.get(key)

    def begin(
        self,
        key: str,
        turn_id: str,
        run: Any,
        body: AsyncIterator[bytes],
        *,
        detached: bool,
        idle_timeout: float | None = DEFAULT_IDLE_TIMEOUT,
        wire: str = "",
        opening: bytes = b"",
    ) -> LiveTurn:
        """Start driving ``body`` (``run``'s encoded stream, ``wire`` naming its form) into a new
        live turn of ``key``. ``opening``: the stream's first bytes, already made (what ``body``
        yields after them follows): in the log at once, so a reader that follows the turn now
        sends them without waiting for the turn's task to be scheduled."""
        turn = LiveTurn(self, key, turn_id, run, detached=detached, idle_timeout=idle_timeout, wire=wire)
        if opening:
            turn.log.chunks.append(opening)
        self._turns[key] = turn
        task = asyncio.get_running_loop().create_task(turn._drive(body), name=f"turnwire-turn-{turn_id}")
        turn.task = task
        _running.add(task)
        task.add_done_callback(_running.discard)
        _by_turn[turn_id] = turn
        return turn

    def _finished(self, turn: LiveTurn) -> None:
        if self._turns.get(turn.key) is turn:
            del self._turns[turn.key]
        if _by_turn.get(turn.turn_id) is turn:
            del _by_turn[turn.turn_id]

    def running_here(self, turn_id: str) -> bool:
        """Whether turn ``turn_id`` runs in this process, not stopped, and has not sent its last
        event yet: it will not free its conversation in a moment (for a remote turn this is not
        known: ``False``)."""
        turn = _by_turn.get(turn_id)
        return turn is not None and turn.registry is self and not (turn.ending or turn.stopped or turn.done)

    async def leaving(self, turn_id: str, within: float) -> bool:
        """Wait (at most ``within`` seconds) until turn ``turn_id``, running here, is stopped,
        ending or done; ``True`` if it is. A client that closes its stream and sends its next
        message at once may be heard before its departure is (the old connection's close runs
        through the server, the door and the turn's reader before the turn stops)."""
        if not self.running_here(turn_id):
            return True
        turn = _by_turn[turn_id]
        if turn._leaving is None:
            turn._leaving = asyncio.Event()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(turn._leaving.wait(), within)
        return not self.running_here(turn_id)

    def stop(self, key: str) -> bool:
        """Stop ``key``'s running turn here and signal every other process; ``True`` if it ran here."""
        turn = self._turns.get(key)
        if turn is not None:
            turn.stop()
        if self.pubsub is not None:
            self.pubsub.publish(STOP_TOPIC + key, {"type": "stop"})
        return turn is not None

    async def elsewhere(self, key: str) -> tuple[str, str] | None:
        """(turn id, wire) of ``key``'s turn running on another process, from the mirror."""
        if self.mirror is None:
            return None
        try:
            return await self.mirror.running(key)
        except Exception:
            log.exception("looking up the running turn of %s failed", key)
            return None

    async def follow_elsewhere(
        self, turn_id: str, keepalive: float | None, keepalive_bytes: bytes = b"", lost: bytes = b""
    ) -> AsyncGenerator[bytes, None]:
        """A turn another process runs, from its mirrored log: ``LiveTurn.follow`` for it. If the
        turn ends without its end (its worker died), ``lost`` (the door's error frame) ends the
        stream; without it, ``TurnLost`` is raised."""
        assert self.mirror is not None
        try:
            async for data in self.mirror.follow(turn_id, keepalive):
                if data is not None:
                    yield data
                elif keepalive_bytes:
                    yield keepalive_bytes
        except TurnLost:
            log.warning("turn %s ended without its end: its server stopped", turn_id)
            if not lost:
                raise
            yield lost

    async def settled(self, key: str, timeout: float) -> bool:
        """Wait (at most ``timeout``) until a turn of ``key`` that another worker is storing
        (it sent its last event) is stored: ``recording.settled`` across processes. True if there
        was one (what was read of the conversation before is stale)."""
        probe = getattr(self.mirror, "ending_turn", None)
        if probe is None or key in self._turns:
            return False
        try:
            turn_id = await probe(key)
            if turn_id is None:
                return False
            # A wait worth seeing in the turn's trace (when traced): the other worker's write.
            with work_span("wait previous turn", {"db.system.name": "redis"}):
                deadline = asyncio.get_running_loop().time() + timeout
                while asyncio.get_running_loop().time() < deadline:
                    found = await self.mirror.running(key)  # type: ignore[union-attr]
                    if found is None or found[0] != turn_id:
                        return True
                    await asyncio.sleep(0.01)
        except Exception:
            log.exception("waiting for the previous turn of %s failed", key)
        return True

    async def close(self) -> None:
        """Stop every running turn and wait for them to end (server shutdown)."""
        turns = list(self._turns.values())
        for turn in turns:
            turn.stop()
        tasks = [t.task for t in turns if t.task is not None]
        if tasks:
            await asyncio.wait(tasks, timeout=5)


async def _quietly(result: Any) -> None:
    if asyncio.iscoroutine(result):
        try:
            await result
        except Exception:
            log.exception("mirroring a turn's log failed")
