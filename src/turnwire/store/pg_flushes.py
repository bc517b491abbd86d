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

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from turnwire.store.base import NewRow, RowChange
from turnwire.store.errors import NotFoundError

_MAX_GROUP: Final = 200

_GROUP_SQL: Final = (
    "WITH alloc AS (UPDATE tasks AS t SET next_seq = t.next_seq + c.n, "
    "last_created_at = GREATEST(t.last_created_at, c.latest) "
    "FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS c(id, n, latest) "
    "WHERE t.id = c.id AND t.status != 'DELETED' RETURNING t.id, t.next_seq - c.n AS base), "
    "ins AS (INSERT INTO messages (id, task_id, seq, content, streaming_status, created_at, updated_at, "
    "writer_id) SELECT r.id, r.task_id, a.base + r.k, r.content, r.status, r.created_at, r.updated_at, "
    "CASE WHEN r.status = 'IN_PROGRESS' THEN r.writer END "
    "FROM unnest($4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::bigint[], $10::bigint[], "
    "$11::text[]) AS r(id, task_id, k, content, status, created_at, updated_at, writer) "
    "JOIN alloc AS a ON a.id = r.task_id), "
    "upd AS (UPDATE messages AS m SET content = u.content, streaming_status = u.status, "
    "updated_at = GREATEST(m.updated_at + 1, u.updated_at) "
    "FROM unnest($12::text[], $13::text[], $14::text[], $15::text[], $16::bigint[], $17::bool[]) "
    "AS u(id, task_id, content, status, updated_at, gated) "
    "WHERE m.id = u.id AND m.task_id = u.task_id "
    "AND (NOT u.gated OR EXISTS (SELECT 1 FROM alloc AS a WHERE a.id = u.task_id))) "
    "SELECT id FROM alloc"
)

Alone = Callable[[str, Sequence[NewRow], Sequence[RowChange], "str | None"], Awaitable[None]]


class _Flush:
    __slots__ = ("changed", "fut", "new", "task_id", "writer")

    def __init__(
        self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange], writer: str | None
    ) -> None:
        self.task_id, self.new, self.changed, self.writer = task_id, new, changed, writer
        self.fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()


class PgFlushes:
    """One statement in flight at a time, carrying every flush queued meanwhile."""

    def __init__(self, fetch: Callable[..., Awaitable[list[Any]]], alone: Alone) -> None:
        self._fetch, self._alone = fetch, alone
        self._queue: list[_Flush] = []
        self._runner: asyncio.Task[None] | None = None

    async def write(
        self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange], writer: str | None
    ) -> None:
        flush = _Flush(task_id, new, changed, writer)
        self._queue.append(flush)
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(self._drain())
        try:
            await asyncio.shield(flush.fut)
        except asyncio.CancelledError:
            # The flush still goes out with its group; its outcome is nobody's to read now.
            flush.fut.add_done_callback(lambda f: f.cancelled() or f.exception())
            raise

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch: list[_Flush] = []
                later: list[_Flush] = []
                tasks: set[str] = set()
                for flush in self._queue:
                    if flush.task_id in tasks or len(batch) >= _MAX_GROUP:
                        later.append(flush)
                    else:
                        tasks.add(flush.task_id)
                        batch.append(flush)
                self._queue = later
                if len(batch) == 1:
                    await self._one(batch[0])
                else:
                    await self._group(batch)
        finally:
            self._runner = None

    async def _one(self, flush: _Flush) -> None:
        try:
            await self._alone(flush.task_id, flush.new, flush.changed, flush.writer)
        except Exception as exc:
            _settle(flush, exc)
        else:
            _settle(flush, None)

    async def _group(self, batch: list[_Flush]) -> None:
        try:
            found = {row[0] for row in await self._fetch(_GROUP_SQL, *_arguments(batch))}
        except Exception:
            for flush in batch:  # nothing of the statement was written: each again, alone
                await self._one(flush)
            return
        for flush in batch:
            _settle(flush, NotFoundError(flush.task_id) if flush.new and flush.task_id not in found else None)


def _settle(flush: _Flush, exc: BaseException | None) -> None:
    if flush.fut.done():
        return
    if exc is None:
        flush.fut.set_result(None)
    else:
        flush.fut.set_exception(exc)


def _arguments(batch: list[_Flush]) -> list[list[Any]]:
    """The 17 array parameters of ``_GROUP_SQL``."""
    a: list[list[Any]] = [[] for _ in range(17)]
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
                )
                for i, value in enumerate(row, 3):
                    a[i].append(value)
        for c in f.changed:
            for i, value in enumerate(
                (c.id, f.task_id, c.content, c.streaming_status, c.updated_at, bool(f.new)), 11
            ):
                a[i].append(value)
    return a
