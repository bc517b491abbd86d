"""The recorder's writes (mixed into ``SqlStore``): every pending create and update of one flush
in one transaction — one batch insert and one multi-row update.

The recorder owns these rows: it picks their ids and timestamps itself when a message starts, so
the TaskMessage it publishes live is the one stored later, field for field.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from turnwire.store.base import NewRow, RowChange
from turnwire.store.engine import Database
from turnwire.store.errors import NotFoundError
from turnwire.store.messages import INSERT_SQL
from turnwire.store.schema import tasks

T = tasks.c
_LIVE = T.status != "DELETED"
# updated_at = max(stored + 1, wanted): strictly advances even if someone else wrote the row since.
_UPDATE_SQL = {
    "sqlite": "UPDATE messages SET content = ?, streaming_status = ?, updated_at = max(updated_at + 1, ?) "
    "WHERE id = ? AND task_id = ?",
    "postgresql": "UPDATE messages SET content = $1, streaming_status = $2, "
    "updated_at = GREATEST(updated_at + 1, $3) WHERE id = $4 AND task_id = $5",
}

# SQLite's hot statements as text, run on the store's SQLite threads (``sqlite_threads``); the same
# as the SQLAlchemy forms used on PostgreSQL.
_CLOCK_SQLITE = "SELECT last_created_at FROM tasks WHERE id = ? AND status != 'DELETED'"
_ALLOCATE_SQLITE = (
    "UPDATE tasks SET next_seq = next_seq + ?, last_created_at = max(last_created_at, ?) "
    "WHERE id = ? AND status != 'DELETED' RETURNING next_seq"
)


class FlushQueries:
    db: Database
    writer_id: str | None

    async def message_clock(self, task_id: str) -> int:
        if self.db.dialect == "sqlite":
            clock = await self.db.sqlite_read(_clock_sqlite, task_id)
        else:
            async with self.db.read() as conn:
                query = sa.select(T.last_created_at).where(T.id == task_id, _LIVE)
                clock = (await conn.execute(query)).scalar()
        if clock is None:
            raise NotFoundError(task_id)
        return clock

    async def write_flush(self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange]) -> None:
        if not new and not changed:
            return
        if self.db.dialect == "sqlite":
            await self.db.sqlite_write(_flush_sqlite, task_id, new, changed, self.writer_id)
            return
        async with self.db.write() as conn:
            if new:
                await self._insert_new(conn, task_id, new)
            if changed:
                rows = [(c.content, c.streaming_status, c.updated_at, c.id, task_id) for c in changed]
                await conn.exec_driver_sql(_UPDATE_SQL["postgresql"], rows)

    async def _insert_new(self, conn: AsyncConnection, task_id: str, new: Sequence[NewRow]) -> None:
        n = len(new)
        latest = max(r.created_at for r in new)
        # Sequence numbers under the task row's lock; the task's clock moves past the given stamps
        # so later server-stamped messages sort after these.
        clock = sa.case((T.last_created_at > latest, T.last_created_at), else_=latest)
        allocate = (
            sa.update(tasks)
            .where(T.id == task_id, _LIVE)
            .values(next_seq=T.next_seq + n, last_created_at=clock)
            .returning(T.next_seq)
        )
        seq = (await conn.execute(allocate)).scalar()
        if seq is None:
            raise NotFoundError(task_id)
        await conn.exec_driver_sql(INSERT_SQL["postgresql"], _new_rows(task_id, new, seq - n, self.writer_id))


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
        conn.executemany(INSERT_SQL["sqlite"], _new_rows(task_id, new, rows[0][0] - n, writer))
    if changed:
        updates = [(c.content, c.streaming_status, c.updated_at, c.id, task_id) for c in changed]
        conn.executemany(_UPDATE_SQL["sqlite"], updates)
