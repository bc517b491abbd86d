"""The SQLite writer thread's group commit and its reader threads, on a real database file: units
queued together share one transaction, and each keeps its own result or exception — a failing
unit, one that ends the whole transaction, or one whose COMMIT fails never takes the others with
it."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from turnwire.store.sqlite_threads import SqliteThreads, connect

pytestmark = pytest.mark.anyio


@pytest.fixture
async def threads(tmp_path: Path) -> AsyncIterator[SqliteThreads]:
    path = str(tmp_path / "t.db")
    conn = connect(path)
    conn.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id))")
    conn.execute("INSERT INTO parent VALUES (1)")
    conn.close()
    t = SqliteThreads(path)
    try:
        yield t
    finally:
        await t.close()


class Commits:
    def __init__(self, t: SqliteThreads) -> None:
        self.count = 0
        assert t.writer_conn is not None
        t.writer_conn.set_trace_callback(self._trace)

    def _trace(self, sql: str) -> None:
        self.count += sql == "COMMIT"


def insert(conn: sqlite3.Connection, i: int) -> int:
    conn.execute("INSERT INTO child VALUES (?, 1)", (i,))
    return i * 10


def fail_after_insert(conn: sqlite3.Connection, i: int) -> None:
    conn.execute("INSERT INTO child VALUES (?, 1)", (i,))
    raise ValueError(f"unit {i} fails")


def end_transaction(conn: sqlite3.Connection, i: int) -> None:
    """Like an error after which SQLite rolls the whole transaction back."""
    conn.execute("INSERT INTO child VALUES (?, 1)", (i,))
    conn.execute("ROLLBACK")
    raise sqlite3.OperationalError("transaction ended")


def bad_at_commit(conn: sqlite3.Connection, i: int) -> None:
    """A foreign key checked only at COMMIT: the COMMIT of whatever transaction holds it fails."""
    conn.execute("PRAGMA defer_foreign_keys = ON")
    conn.execute("INSERT INTO child VALUES (?, 999)", (i,))


def note(conn: sqlite3.Connection, i: int) -> int:
    conn.execute("INSERT INTO seen VALUES (?)", (i,))
    return i


def children(conn: sqlite3.Connection) -> list[int]:
    return [r[0] for r in conn.execute("SELECT id FROM child ORDER BY id")]


async def grouped(t: SqliteThreads, units: list[tuple]) -> list[object]:
    """Queue ``units`` while the writer is paused, so they form one batch; their outcomes."""
    pause = await t.pause()
    futures = [t.write(fn, *args) for fn, *args in units]
    pause.resume.set()
    return await asyncio.gather(*futures, return_exceptions=True)


async def test_units_queued_together_commit_in_one_transaction(threads: SqliteThreads) -> None:
    await threads.read(children)  # start the threads
    commits = Commits(threads)
    assert await grouped(threads, [(insert, i) for i in range(1, 6)]) == [10, 20, 30, 40, 50]
    assert commits.count == 1
    assert await threads.read(children) == [1, 2, 3, 4, 5]


async def test_a_failing_unit_rolls_back_alone(threads: SqliteThreads) -> None:
    await threads.read(children)
    commits = Commits(threads)
    out = await grouped(threads, [(insert, 1), (fail_after_insert, 2), (insert, 3)])
    assert out[0] == 10 and out[2] == 30
    assert isinstance(out[1], ValueError) and str(out[1]) == "unit 2 fails"
    assert commits.count == 1
    assert await threads.read(children) == [1, 3]


async def test_a_unit_that_ends_the_transaction_does_not_lose_the_others(threads: SqliteThreads) -> None:
    out = await grouped(threads, [(insert, 1), (end_transaction, 2), (insert, 3)])
    assert out[0] == 10 and out[2] == 30
    assert isinstance(out[1], sqlite3.OperationalError)
    assert await threads.read(children) == [1, 3]


async def test_a_failing_commit_replays_the_others_alone(threads: SqliteThreads) -> None:
    out = await grouped(threads, [(insert, 1), (bad_at_commit, 2), (insert, 3)])
    assert out[0] == 10 and out[2] == 30
    assert isinstance(out[1], sqlite3.IntegrityError)
    assert await threads.read(children) == [1, 3]


async def test_readers_do_not_wait_for_the_writer_and_see_only_commits(threads: SqliteThreads) -> None:
    await threads.write(insert, 1)
    pause = await threads.pause()
    try:
        queued = threads.write(insert, 2)
        # The writer is held between transactions: the read answers at once, without unit 2.
        assert await asyncio.wait_for(threads.read(children), 5) == [1]
        assert not queued.done()
    finally:
        pause.resume.set()
    assert await queued == 20
    assert await threads.read(children) == [1, 2]


async def test_close_finishes_what_was_queued(tmp_path: Path) -> None:
    path = str(tmp_path / "c.db")
    conn = connect(path)
    conn.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id))")
    conn.execute("INSERT INTO parent VALUES (1)")
    t = SqliteThreads(path)
    futures = [t.write(insert, i) for i in range(1, 4)]
    await t.close()
    assert await asyncio.gather(*futures) == [10, 20, 30]
    assert children(conn) == [1, 2, 3]
    conn.close()


# Quick units: run on the event loop's own connection, grouped per loop turn; the writer thread
# takes them over whenever the loop cannot apply them cleanly, and keeps their order.


class Traced:
    """Statements of the write connections, and on which thread each ran."""

    def __init__(self, t: SqliteThreads) -> None:
        self.commits: list[str] = []
        t.trace_writes(self._trace)

    def _trace(self, sql: str) -> None:
        if sql == "COMMIT":
            self.commits.append(threading.current_thread().name)


async def test_quick_units_of_one_loop_turn_commit_together_on_the_loop(threads: SqliteThreads) -> None:
    traced = Traced(threads)
    futures = [threads.write(insert, i, quick=True) for i in range(1, 6)]
    assert await asyncio.gather(*futures) == [10, 20, 30, 40, 50]
    assert traced.commits == [threading.current_thread().name]
    assert threads.read_now(children) == [1, 2, 3, 4, 5]


async def test_a_failing_quick_unit_fails_alone_and_the_others_commit(threads: SqliteThreads) -> None:
    futures = [
        threads.write(insert, 1, quick=True),
        threads.write(fail_after_insert, 2, quick=True),
        threads.write(end_transaction, 3, quick=True),
        threads.write(bad_at_commit, 4, quick=True),
        threads.write(insert, 5, quick=True),
    ]
    out = await asyncio.gather(*futures, return_exceptions=True)
    assert out[0] == 10 and out[4] == 50
    assert isinstance(out[1], ValueError) and isinstance(out[2], sqlite3.OperationalError)
    assert isinstance(out[3], sqlite3.IntegrityError)
    assert threads.read_now(children) == [1, 5]


async def test_quick_units_wait_for_a_lock_held_elsewhere_and_keep_their_order(
    threads: SqliteThreads, tmp_path: Path
) -> None:
    other = connect(str(tmp_path / "t.db"))
    other.execute("CREATE TABLE seen (n INTEGER)")  # rowids in the order of the commits
    other.execute("BEGIN IMMEDIATE")  # another process's write transaction
    first = threads.write(note, 1, quick=True)
    await asyncio.sleep(0.05)  # the loop found the database locked: the writer thread waits
    assert not first.done()
    later = [threads.write(note, i, quick=True) for i in (2, 3)]
    other.execute("INSERT INTO seen VALUES (0)")
    other.execute("COMMIT")
    other.close()
    assert await asyncio.gather(first, *later) == [1, 2, 3]
    order = threads.read_now(lambda c: [r[0] for r in c.execute("SELECT n FROM seen ORDER BY rowid")])
    assert order == [0, 1, 2, 3]


async def test_quick_units_queue_behind_a_pause_and_what_the_thread_has(threads: SqliteThreads) -> None:
    slow = threads.write(insert, 1)  # on the writer thread
    pause = await threads.pause()
    try:
        queued = threads.write(insert, 2, quick=True)
        await asyncio.sleep(0.05)
        assert not queued.done()
        assert threads.read_now(children) == [1]
    finally:
        pause.resume.set()
    assert await slow == 10 and await queued == 20
    # Once the thread has nothing left, quick units run on the loop again.
    traced = Traced(threads)
    assert await threads.write(insert, 3, quick=True) == 30
    assert traced.commits == [threading.current_thread().name]


async def test_close_writes_the_quick_units_queued(tmp_path: Path) -> None:
    path = str(tmp_path / "q.db")
    conn = connect(path)
    conn.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
    conn.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id))")
    conn.execute("INSERT INTO parent VALUES (1)")
    t = SqliteThreads(path)
    futures = [t.write(insert, i, quick=True) for i in range(1, 4)]
    await t.close()
    assert await asyncio.gather(*futures) == [10, 20, 30]
    assert children(conn) == [1, 2, 3]
    conn.close()


async def test_the_writer_thread_checkpoints_what_the_loop_wrote(
    threads: SqliteThreads, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The loop's connection never checkpoints (that would fsync on the loop): the WAL would grow
    # without end unless the writer thread checkpoints between its transactions.
    monkeypatch.setattr("turnwire.store.sqlite_threads.CHECKPOINT_ROWS", 3)
    statements: list[tuple[str, str]] = []
    threads.trace_writes(lambda sql: statements.append((threading.current_thread().name, sql)))
    await asyncio.gather(*(threads.write(insert, i, quick=True) for i in range(1, 5)))
    for _ in range(100):
        if any("wal_checkpoint" in sql for _, sql in statements):
            break
        await asyncio.sleep(0.01)
    assert ("turnwire-sqlite-writer", "PRAGMA wal_checkpoint(PASSIVE)") in statements
    assert await threads.write(insert, 5, quick=True) == 50
    assert threads.read_now(children) == [1, 2, 3, 4, 5]
