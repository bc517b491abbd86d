"""SQLite on threads of its own: one writer thread with group commit, a few reader threads.

Each write transaction is one function ``fn(conn, *args)`` handed to the writer thread in one hop
(a queue put; the answer comes back with one ``call_soon_threadsafe`` per batch). The thread owns
its ``sqlite3`` connection: no pool checkout, no greenlet, no per-statement round trip.

**Group commit.** Transactions queued while one runs are applied together in one
``BEGIN IMMEDIATE`` … ``COMMIT``. A unit that raises is rolled back alone and gets its exception,
the others commit: the batch first runs without savepoints (two statements a unit fewer, and
every statement is a GIL hand-off), and if any unit raises, all of it is rolled back and run
again with each unit inside its own ``SAVEPOINT``. If the batch as a whole fails (its ``COMMIT``,
or an error that ends the transaction), every unit of it is run again alone, so one unit's failure
never takes the others with it. Nothing is acknowledged before its ``COMMIT``.

**Quick units on the event loop.** A unit marked ``quick`` (a session's creation, on the path to
a turn's first byte; recorder flushes if ``SqlStore.quick_flushes``: tens of µs) runs on the
event loop's own write connection instead, grouped the same way: every quick unit queued during
one turn of the loop goes into one transaction, run by one callback at the end of that turn. No
thread wakes up, and neither side waits for the GIL, which a busy loop holds for up to the switch
interval (5 ms) each time the writer thread wants it back after a statement. That connection
never waits for a lock (``busy_timeout=0``) and never checkpoints: after ``CHECKPOINT_ROWS`` rows
or ``CHECKPOINT_EVERY`` seconds of such commits the writer thread does, between transactions, as
SQLite's automatic checkpoint would after a commit (the WAL file then starts over instead of
growing), quick units waiting meanwhile. If the database is locked (another process, or a write
through SQLAlchemy), if a unit raises, or if its ``COMMIT`` fails, nothing of the batch is kept
and the whole batch goes to the writer thread, which applies it as above. Order is kept: while
anything waits for or runs on the writer thread, quick units wait on the loop until it is done.

**Reads.** ``read_now`` runs a cheap read (a lookup by key: a few µs) at once on the event loop's
own connection: a hop to a thread costs more than the statement, and each hop makes the loop and
the thread wait for the GIL in turn while the loop is busy. ``read`` runs ``fn(conn, *args)`` on
a reader thread's connection (started on first use) for reads that may take long. Neither uses
``BEGIN``: under WAL each statement sees a committed snapshot and never waits for the writer.
"""

from __future__ import annotations

import asyncio
import contextlib
import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any, Final, TypeVar

from turnwire.store.sqlite_group_commit import Outcome, Unit, apply_alone, apply_group

R = TypeVar("R")

PRAGMAS: Final = (
    "journal_mode=WAL",
    "synchronous=NORMAL",
    "foreign_keys=ON",
    "busy_timeout=30000",
    "temp_store=MEMORY",  # a batch update's VALUES table: about 10 % of its statement's time
)
MAX_GROUP: Final = 256
"""Units applied in one transaction at most: bounds how long a batch holds the write lock."""


def connect(path: str, *, uri: bool = False) -> sqlite3.Connection:
    """A connection in autocommit mode (``BEGIN`` is ours to issue) with the store's pragmas."""
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, uri=uri, cached_statements=64)
    for pragma in PRAGMAS:
        conn.execute(f"PRAGMA {pragma}")
    return conn


def _settle(outcomes: list[Outcome]) -> None:
    """On the event loop: hand each unit its result or exception (unless its caller gave up)."""
    for fut, result, exc in outcomes:
        if fut.cancelled():
            continue
        if exc is None:
            fut.set_result(result)
        else:
            fut.set_exception(exc)


def _deliver(outcomes: list[Outcome]) -> None:
    """From a thread: one wake-up per event loop for a whole batch."""
    by_loop: dict[asyncio.AbstractEventLoop, list[Outcome]] = {}
    for outcome in outcomes:
        by_loop.setdefault(outcome[0].get_loop(), []).append(outcome)
    for loop, items in by_loop.items():
        with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
            loop.call_soon_threadsafe(_settle, items)


_NOTHING: Final = object()
CHECKPOINT_EVERY: Final = 0.5
CHECKPOINT_ROWS: Final = 4000
"""Seconds, or rows written, between checkpoints of what the loop's connection wrote (SQLite's
automatic one runs in the committing connection, fsync included: never on the loop)."""


class _Checkpoint:
    """A marker in the writer's queue: checkpoint the WAL between transactions."""

    def __init__(self, loop: asyncio.AbstractEventLoop, done: Callable[[], None]) -> None:
        self.loop, self.done = loop, done


class _Pause:
    """A marker in the writer's queue: stop between transactions until ``resume`` is set."""

    def __init__(self, fut: asyncio.Future[None]) -> None:
        self.fut = fut
        self.resume = threading.Event()
        self.on_resume: Callable[[], None] = lambda: None


class SqliteThreads:
    """The writer thread and reader threads of one SQLite database file."""

    def __init__(self, path: str, *, uri: bool = False, readers: int = 2) -> None:
        self.path, self.uri, self.readers = path, uri, readers
        self._writes: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._reads: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._started = self._reading = False
        self.writer_conn: sqlite3.Connection | None = None
        self._here: sqlite3.Connection | None = None  # ``read_now``'s, used on the event loop only
        # Quick units: the loop's write connection, the units waiting for this loop turn's
        # callback, and how many units and pauses the writer thread has not finished.
        self._loop: asyncio.AbstractEventLoop | None = None
        self._here_writer: sqlite3.Connection | None = None
        self._here_units: list[Unit] = []
        self._on_thread = 0
        self._last_checkpoint = 0.0
        self._checkpoint_changes = 0
        self._trace: Callable[[str], None] | None = None

    def _start(self) -> None:
        # Connections open here, in the caller, so a bad path fails the first call that uses it.
        self.writer_conn = writer = connect(self.path, uri=self.uri)
        writer.set_trace_callback(self._trace)
        self._threads = [threading.Thread(target=self._write_loop, args=(writer,), daemon=True)]
        self._threads[0].name = "turnwire-sqlite-writer"
        self._threads[0].start()
        self._started = True

    def trace_writes(self, callback: Callable[[str], None] | None) -> None:
        """Call ``callback`` with every statement a write connection runs (the writer thread's and
        the loop's, opened now or later): what tests count."""
        self._trace = callback
        for conn in (self.writer_conn, self._here_writer):
            if conn is not None:
                conn.set_trace_callback(callback)

    def _start_here(self, loop: asyncio.AbstractEventLoop) -> sqlite3.Connection:
        conn = self._here_writer = connect(self.path, uri=self.uri)
        conn.execute("PRAGMA busy_timeout=0")
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.set_trace_callback(self._trace)
        self._loop = loop
        self._last_checkpoint = time.monotonic()
        return conn

    def _start_readers(self) -> None:
        readers = [connect(self.path, uri=self.uri) for _ in range(self.readers)]
        for i, conn in enumerate(readers, 1):
            thread = threading.Thread(target=self._read_loop, args=(conn,), daemon=True)
            thread.name = f"turnwire-sqlite-reader-{i}"
            thread.start()
            self._threads.append(thread)
        self._reading = True

    # ------------------------------------------------------------------ event-loop side
    def write(self, fn: Callable[..., R], *args: Any, quick: bool = False) -> asyncio.Future[R]:
        """Run ``fn(conn, *args)`` as one write transaction (possibly grouped with others).
        ``quick``: it takes microseconds and may run on the event loop (see the module doc)."""
        if not self._started:
            self._start()
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[R] = loop.create_future()
        if quick and (self._loop is loop or self._loop is None):
            if self._loop is None:
                self._start_here(loop)
            if not self._here_units:
                loop.call_soon(self._run_here)
            self._here_units.append((fn, args, fut, loop))
        else:
            self._to_thread([(fn, args, fut, loop)])
        return fut

    def _to_thread(self, units: list[Unit]) -> None:
        """Queue ``units`` for the writer thread, behind the quick units queued before them."""
        if self._here_units:
            units, self._here_units = [*self._here_units, *units], []
        self._on_thread += len(units)
        for unit in units:
            self._writes.put(unit)

    def _thread_done(self, outcomes: list[Outcome]) -> None:
        """On the event loop: the writer thread finished these units."""
        self._unqueue(len(outcomes))
        _settle(outcomes)

    def _unpause(self) -> None:
        self._unqueue(1)

    def _unqueue(self, n: int) -> None:
        self._on_thread -= n
        if not self._on_thread and self._here_units:  # they waited for the thread to be done
            asyncio.get_running_loop().call_soon(self._run_here)

    def _run_here(self) -> None:
        """On the event loop, at the end of the turn that queued them: the quick units as one
        transaction on the loop's connection, or all of them to the writer thread."""
        conn = self._here_writer
        if self._on_thread or conn is None:
            return  # after what the thread has (queued before these): ``_unqueue`` calls again
        batch, self._here_units = self._here_units[:MAX_GROUP], self._here_units[MAX_GROUP:]
        if self._here_units:
            asyncio.get_running_loop().call_soon(self._run_here)
        if not batch:
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error:  # locked: the writer thread waits for the lock instead
            self._to_thread(batch)
            return
        outcomes: list[Outcome] = []
        try:
            for fn, args, fut, _loop in batch:
                outcomes.append((fut, fn(conn, *args), None))
            conn.execute("COMMIT")
        except Exception:
            # Nothing of the batch is kept; the writer thread applies it, each unit's error its own.
            if conn.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    conn.execute("ROLLBACK")
            self._to_thread(batch)
            return
        _settle(outcomes)
        now = time.monotonic()
        changes = conn.total_changes
        if (
            now - self._last_checkpoint >= CHECKPOINT_EVERY
            or changes - self._checkpoint_changes >= CHECKPOINT_ROWS
        ):
            self._last_checkpoint, self._checkpoint_changes = now, changes
            self._on_thread += 1  # quick units queue on the thread until the checkpoint is done
            self._writes.put(_Checkpoint(asyncio.get_running_loop(), self._unpause))

    def read(self, fn: Callable[..., R], *args: Any) -> asyncio.Future[R]:
        """Run ``fn(conn, *args)`` on a reader connection (no transaction: one snapshot per statement)."""
        if not self._started:
            self._start()
        if not self._reading:
            self._start_readers()
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[R] = loop.create_future()
        self._reads.put((fn, args, fut, loop))
        return fut

    def read_now(self, fn: Callable[..., R], *args: Any) -> R:
        """``fn(conn, *args)`` at once, in the caller's thread (the event loop's), on a connection
        of its own. Only for reads that take microseconds: the loop waits meanwhile."""
        if not self._started:
            self._start()
        conn = self._here
        if conn is None:
            conn = self._here = connect(self.path, uri=self.uri)
        return fn(conn, *args)

    async def pause(self) -> _Pause:
        """Wait until the writer thread stands between transactions and keep it there until the
        returned marker's ``resume`` is set (for a transaction run on another connection)."""
        if not self._started:
            self._start()
        loop = asyncio.get_running_loop()
        pause = _Pause(loop.create_future())
        if self._here_units:  # quick units queued before the pause run before it
            self._to_thread([])
        self._on_thread += 1  # quick units wait behind the pause until the writer goes on

        def resume() -> None:
            loop.call_soon_threadsafe(self._unpause)

        pause.on_resume = resume
        self._writes.put(pause)
        try:
            await asyncio.shield(pause.fut)
        except BaseException:
            pause.resume.set()
            raise
        return pause

    async def close(self) -> None:
        if not self._started:
            return
        self._to_thread([])  # quick units still queued: the writer thread writes them before it stops
        self._started = False
        self._writes.put(None)
        if self._reading:
            self._reading = False
            for _ in range(self.readers):
                self._reads.put(None)
        threads, self._threads = self._threads, []

        def join() -> None:
            for thread in threads:
                thread.join()

        await asyncio.get_running_loop().run_in_executor(None, join)
        for conn in (self._here, self._here_writer):
            if conn is not None:
                conn.close()
        self._here = self._here_writer = self._loop = None

    # ------------------------------------------------------------------ threads
    def _read_loop(self, conn: sqlite3.Connection) -> None:
        get = self._reads.get
        try:
            while (unit := get()) is not None:
                fn, args, fut, _loop = unit
                try:
                    outcome: Outcome = (fut, fn(conn, *args), None)
                except BaseException as exc:
                    outcome = (fut, None, exc)
                _deliver([outcome])
        finally:
            conn.close()

    def _write_loop(self, conn: sqlite3.Connection) -> None:
        get, get_nowait = self._writes.get, self._writes.get_nowait
        held: Any = _NOTHING  # an item taken from the queue that must wait for the next round
        try:
            while True:
                item = get() if held is _NOTHING else held
                held = _NOTHING
                if item is None:
                    return
                if isinstance(item, _Checkpoint):
                    with contextlib.suppress(sqlite3.Error):
                        conn.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
                    with contextlib.suppress(RuntimeError):  # that loop is closed
                        item.loop.call_soon_threadsafe(item.done)
                    continue
                if isinstance(item, _Pause):
                    _deliver([(item.fut, None, None)])
                    item.resume.wait()
                    with contextlib.suppress(RuntimeError):  # that loop is closed
                        item.on_resume()
                    continue
                batch: list[Unit] = [item]
                while len(batch) < MAX_GROUP:
                    try:
                        nxt = get_nowait()
                    except queue.Empty:
                        break
                    if nxt is None or isinstance(nxt, (_Pause, _Checkpoint)):
                        held = nxt
                        break
                    batch.append(nxt)
                outcomes = apply_group(conn, batch) if len(batch) > 1 else [apply_alone(conn, batch[0])]
                self._deliver_writes(outcomes)
        finally:
            conn.close()

    def _deliver_writes(self, outcomes: list[Outcome]) -> None:
        """From the writer thread: one wake-up per event loop for a whole batch."""
        by_loop: dict[asyncio.AbstractEventLoop, list[Outcome]] = {}
        for outcome in outcomes:
            by_loop.setdefault(outcome[0].get_loop(), []).append(outcome)
        for loop, items in by_loop.items():
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
                loop.call_soon_threadsafe(self._thread_done, items)
