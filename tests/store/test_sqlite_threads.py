"""The SQLite writer thread's group commit and its reader threads, on a real database file: units
queued together share one transaction, and each keeps its own result or exception — a failing
unit, one that ends the whole transaction, or one whose COMMIT fails never takes the others with
it."""

from __future__ import annotations

import asyncio
import sqlite3
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
