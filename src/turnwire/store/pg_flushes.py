"""Group commit of the recorder's flushes on PostgreSQL.

With hundreds of turns streaming, each flushing every 100 ms, one statement per flush keeps the
asyncpg pool and the database busy with small transactions (and the next requests' session
lookups wait behind them). Flushes queued while one statement runs go together in the next one:
one ``UPDATE … FROM unnest`` allocates every task's sequence numbers, one insert and one update
carry every task's rows. Each flush keeps its own outcome: a task that is gone fails only its own
flush (and none of its rows is written). A task appears once per statement (a second flush of the
same task waits for the next one, so its sequence numbers follow), and if the statement fails as a
whole, each flush of it runs again alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from turnwire.store.base import LAST, NewRow, RowChange
from turnwire.store.errors import NotFoundError
from turnwire.store.pg_grouping import Grouped

_MAX_GROUP: Final = 200

_GROUP_SQL: Final = (
    "WITH alloc AS (UPDATE tasks AS t SET next_seq = t.next_seq + c.n, "
    "last_created_at = GREATEST(t.last_created_at, c.latest) "
    "FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(id, n, latest) "
    "WHERE t.id = c.id AND t.status != 'DELETED' RETURNING t.id, t.next_seq - c.n AS base), "
    "ins AS (INSERT INTO messages (id, task_id, seq, content, streaming_status, created_at, updated_at, "
    "writer_id, note, parent_id) SELECT r.id, r.task_id, a.base + r.k, r.content, r.status, r.created_at, "
    "r.updated_at, CASE WHEN r.status = 'IN_PROGRESS' THEN r.writer END, r.note, "
    f"CASE WHEN r.parent = '{LAST}' THEN (SELECT l.id FROM messages AS l WHERE l.task_id = r.task_id "
    "ORDER BY l.seq DESC LIMIT 1) ELSE r.parent END "
    "FROM unnest($4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::bigint[], $10::bigint[], "
    "$11::text[], $12::text[], $13::text[]) "
    "AS r(id, task_id, k, content, status, created_at, updated_at, writer, note, parent) "
    "JOIN alloc AS a ON a.id = r.task_id), "
    "upd AS (UPDATE messages AS m SET content = u.content, streaming_status = u.status, "
    "updated_at = GREATEST(m.updated_at + 1, u.updated_at), note = u.note "
    "FROM unnest($14::text[], $15::text[], $16::text[], $17::text[], $18::bigint[], $19::bool[], "
    "$20::text[]) "
    "AS u(id, task_id, content, status, updated_at, gated, note) "
    "WHERE m.id = u.id AND m.task_id = u.task_id "
    "AND (NOT u.gated OR EXISTS (SELECT 1 FROM alloc AS a WHERE a.id = u.task_id))) "
    "SELECT id FROM alloc"
)

Alone = Callable[[str, Sequence[NewRow], Sequence[RowChange], "str | None"], Awaitable[None]]


class _Flush:
    __slots__ = ("changed", "new", "task_id", "writer")

    def __init__(
        self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange], writer: str | None
    ) -> None:
        self.task_id, self.new, self.changed, self.writer = task_id, new, changed, writer


class PgFlushes(Grouped[_Flush, None]):
    """One statement in flight at a time, carrying every flush queued meanwhile."""

    max_group = _MAX_GROUP

    def __init__(self, fetch: Callable[..., Awaitable[list[Any]]], alone: Alone) -> None:
        super().__init__()
        self._fetch, self._alone = fetch, alone

    async def write(
        self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange], writer: str | None
    ) -> None:
        await self.submit(_Flush(task_id, new, changed, writer))

    def key(self, call: _Flush) -> str:
        return call.task_id

    async def alone(self, call: _Flush) -> None:
        await self._alone(call.task_id, call.new, call.changed, call.writer)

    async def together(self, calls: list[_Flush]) -> list[BaseException | None]:
        found = {row[0] for row in await self._fetch(_GROUP_SQL, *_arguments(calls))}
        return [NotFoundError(f.task_id) if f.new and f.task_id not in found else None for f in calls]


def _arguments(batch: list[_Flush]) -> list[list[Any]]:
    """The 20 array parameters of ``_GROUP_SQL``."""
    a: list[list[Any]] = [[] for _ in range(20)]
    for f in batch:
        if f.new:
            a[0].append(f.task_id)
            a[1].append(len(f.new))
            a[2].append(max(r.created_at for r in f.new))
            for k, r in enumerate(f.new):
                row = (
                    r.id,
                    f.task_id,
                    k,
                    r.content,
                    r.streaming_status,
                    r.created_at,
                    r.updated_at,
                    f.writer,
                    r.note,
                    r.parent_id,
                )
                for i, value in enumerate(row, 3):
                    a[i].append(value)
        for c in f.changed:
            for i, value in enumerate(
                (c.id, f.task_id, c.content, c.streaming_status, c.updated_at, bool(f.new), c.note), 13
            ):
                a[i].append(value)
    return a
