"""The recorder's writes (mixed into ``SqlStore``): every pending create and update of one flush
in one transaction — one batch insert and one multi-row update.

The recorder owns these rows: it picks their ids and timestamps itself when a message starts, so
the TaskMessage it publishes live is the one stored later, field for field.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from turnwire.store.base import LAST, NewRow, RowChange
from turnwire.store.engine import Database
from turnwire.store.errors import NotFoundError
from turnwire.store.message_writes import INSERT_SQL, LAST_ID_SQL
from turnwire.store.pg_flushes import PgFlushes

# updated_at = max(stored + 1, wanted): strictly advances even if someone else wrote the row since.
_UPDATE_SQLITE = (
    "UPDATE messages SET content = ?, streaming_status = ?, updated_at = max(updated_at + 1, ?), "
    "note = ? WHERE id = ? AND task_id = ?"
)

# SQLite's hot statements as text, run on the store's SQLite threads (``sqlite_threads``); the same
# as the SQLAlchemy forms used on PostgreSQL.
_CLOCK_SQLITE = "SELECT last_created_at FROM tasks WHERE id = ? AND status != 'DELETED'"
# PostgreSQL: a flush in one statement. Sequence numbers under the task row's lock; the task's
# clock moves past the given stamps so later server-stamped messages sort after these. The changes
# apply only if the task is there (else nothing is written), and ``updated_at`` never moves back.
_CLOCK_PG = "SELECT last_created_at FROM tasks WHERE id = $1 AND status != 'DELETED'"
_CHANGE_PG = (
    "UPDATE messages AS m SET content = u.content, streaming_status = u.status, "
    "updated_at = GREATEST(m.updated_at + 1, u.updated_at), note = u.note "
    "FROM unnest($2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[]) "
    "AS u(id, content, status, updated_at, note) WHERE m.id = u.id AND m.task_id = $1"
)
_CREATE_CTE_PG = (
    "WITH alloc AS (UPDATE tasks SET next_seq = next_seq + cardinality($2::text[]), "
    "last_created_at = GREATEST(last_created_at, $3::bigint) WHERE id = $1 AND status != 'DELETED' "
    "RETURNING next_seq - cardinality($2::text[]) AS base), "
    "ins AS (INSERT INTO messages (id, task_id, seq, content, streaming_status, created_at, updated_at, "
    "writer_id, note, parent_id) SELECT r.id, $1, alloc.base + r.n - 1, r.content, r.status, r.created_at, "
    "r.updated_at, CASE WHEN r.status = 'IN_PROGRESS' THEN $8::text END, r.note, "
    f"CASE WHEN r.parent = '{LAST}' THEN (SELECT l.id FROM messages AS l WHERE l.task_id = $1 "
    "ORDER BY l.seq DESC LIMIT 1) ELSE r.parent END FROM alloc, "
    "unnest($2::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $9::text[], $10::text[]) "
    "WITH ORDINALITY AS r(id, content, status, created_at, updated_at, note, parent, n))"
)
_CREATE_PG = _CREATE_CTE_PG + " SELECT count(*) FROM alloc"
_FLUSH_PG = (
    _CREATE_CTE_PG + ", upd AS (UPDATE messages AS m SET content = u.content, streaming_status = u.status, "
    "updated_at = GREATEST(m.updated_at + 1, u.updated_at), note = u.note "
    "FROM unnest($11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[]) "
    "AS u(id, content, status, updated_at, note) "
    "WHERE m.id = u.id AND m.task_id = $1 AND EXISTS (SELECT 1 FROM alloc)) "
    "SELECT count(*) FROM alloc"
)
_ALLOCATE_SQLITE = (
    "UPDATE tasks SET next_seq = next_seq + ?, last_created_at = max(last_created_at, ?) "
    "WHERE id = ? AND status != 'DELETED' RETURNING next_seq"
)


class FlushQueries:
    db: Database
    writer_id: str | None
    _pg_flushes: PgFlushes | None = None
    quick_flushes: bool = False

    def pending_task(self, task_id: str, tenant: str | None = None) -> dict[str, Any] | None:
        raise NotImplementedError  # provided by TaskQueries

    """SQLite: ``True`` runs flushes on the event loop's connection (``sqlite_threads``' quick
    units); ``False`` (the default) on the writer thread, its SQL beside the loop. Measured in one
    process (``bench/experiments/ttfb_inproc.py``, 1,000 new sessions): the same on short fast turns, and on
    cadenced turns (a flush every 100 ms, a few rows each) the thread costs less CPU (≈ 1,800 vs
    2,150 µs a request) and the numbers come less late (p99 ≈ 113 vs 150 ms)."""

    async def message_clock(self, task_id: str) -> int:
        if self.db.dialect == "sqlite":
            clock = self.db.sqlite_read_now(_clock_sqlite, task_id)
        else:
            rows = await self.db.pg_fetch(_CLOCK_PG, task_id)
            clock = rows[0][0] if rows else None
        if clock is None:
            if self.pending_task(task_id) is not None:  # queued by ``session_task_soon``: new
                return 0
            raise NotFoundError(task_id)
        return clock

    async def write_flush(self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange]) -> None:
        if not new and not changed:
            return
        if self.db.dialect == "sqlite":
            quick = self.quick_flushes  # a flush holds what one turn produced in one interval
            await self.db.sqlite_write(_flush_sqlite, task_id, new, changed, self.writer_id, quick=quick)
            return
        if self._pg_flushes is None:
            db = self.db
            self._pg_flushes = PgFlushes(db.pg_fetch, lambda *args: _flush_pg(db, *args))
        await self._pg_flushes.write(task_id, new, changed, self.writer_id)


async def _flush_pg(
    db: Database, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange], writer: str | None
) -> None:
    """``write_flush`` on PostgreSQL as one statement (one round trip, atomic on its own): the rows
    travel as arrays and ``unnest`` back into rows."""
    if not new:
        await db.pg_fetch(
            _CHANGE_PG,
            task_id,
            [c.id for c in changed],
            [c.content for c in changed],
            [c.streaming_status for c in changed],
            [c.updated_at for c in changed],
            [c.note for c in changed],
        )
        return
    args: list[Any] = [
        task_id,
        [r.id for r in new],
        max(r.created_at for r in new),
        [r.content for r in new],
        [r.streaming_status for r in new],
        [r.created_at for r in new],
        [r.updated_at for r in new],
        writer,
        [r.note for r in new],
        [r.parent_id for r in new],
    ]
    if changed:
        args += (
            [c.id for c in changed],
            [c.content for c in changed],
            [c.streaming_status for c in changed],
            [c.updated_at for c in changed],
            [c.note for c in changed],
        )
    found = await db.pg_fetch(_FLUSH_PG if changed else _CREATE_PG, *args)
    if not found[0][0]:
        raise NotFoundError(task_id)


def _new_rows(task_id: str, new: Sequence[NewRow], seq: int, writer: str | None) -> list[tuple[Any, ...]]:
    """The insert parameters of ``new``, numbered from ``seq``; open ones owned by ``writer``."""
    return [
        (
            r.id,
            task_id,
            seq + i,
            r.content,
            r.streaming_status,
            r.created_at,
            r.updated_at,
            writer if r.streaming_status == "IN_PROGRESS" else None,
            r.note,
            r.parent_id,
        )
        for i, r in enumerate(new)
    ]


def _clock_sqlite(conn: sqlite3.Connection, task_id: str) -> int | None:
    rows = conn.execute(_CLOCK_SQLITE, (task_id,)).fetchall()
    return rows[0][0] if rows else None


def _flush_sqlite(
    conn: sqlite3.Connection,
    task_id: str,
    new: Sequence[NewRow],
    changed: Sequence[RowChange],
    writer: str | None,
) -> None:
    """``write_flush`` as one transaction of the SQLite writer thread."""
    if new:
        n = len(new)
        rows = conn.execute(_ALLOCATE_SQLITE, (n, max(r.created_at for r in new), task_id)).fetchall()
        if not rows:
            raise NotFoundError(task_id)
        if new[0].parent_id == LAST:  # before the insert: the task's last message so far
            last = conn.execute(LAST_ID_SQL["sqlite"], (task_id,)).fetchone()
            new = [new[0]._replace(parent_id=last[0] if last else None), *new[1:]]
        conn.executemany(INSERT_SQL["sqlite"], _new_rows(task_id, new, rows[0][0] - n, writer))
    if changed:
        updates = [(c.content, c.streaming_status, c.updated_at, c.note, c.id, task_id) for c in changed]
        conn.executemany(_UPDATE_SQLITE, updates)
