"""Session lookups-or-creates on PostgreSQL, grouped.

When hundreds of new sessions arrive at once, one statement each means hundreds of trips through
the asyncpg pool, each waiting for a connection and then for the busy event loop to read its
answer (with 500 cadenced streams on the loop, p99 ≈ 1.2 s against SQLite's 0.17 s). Lookups
queued while one statement runs go together in the next: one statement finds every session's rows
and inserts the missing ones, with the same rules as ``tasks._SESSION_PG_CREATE`` applied per
session. A (session, tenant) appears once per statement (a second request for it waits for the
next one, which then finds the task the first created). If the statement fails as a whole, each
lookup runs again alone.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Final

_MAX_GROUP: Final = 500

# ``r.k`` numbers the lookups; every row of the answer carries the ``k`` it belongs to. The tasks
# found by id and by name are two joins: one join on ``id = sid OR name = sid`` scans the table.
_GROUP_SQL: Final = (
    "WITH req AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) "
    "WITH ORDINALITY AS r(sid, tenant, new_id, now, k)), "
    "found AS (SELECT r.k, t.id, t.name, t.status, t.status_reason, t.params, t.task_metadata, "
    "t.created_at, t.updated_at, t.last_created_at FROM req AS r JOIN tasks AS t "
    "ON t.id = r.sid AND t.tenant = r.tenant UNION ALL "
    "SELECT r.k, t.id, t.name, t.status, t.status_reason, t.params, t.task_metadata, "
    "t.created_at, t.updated_at, t.last_created_at FROM req AS r JOIN tasks AS t "
    "ON t.name = r.sid AND t.tenant = r.tenant AND t.id != r.sid), "
    "ins AS (INSERT INTO tasks (id, name, status, created_at, updated_at, tenant) "
    "SELECT r.new_id, r.sid, 'RUNNING', r.now, r.now, r.tenant FROM req AS r "
    "WHERE NOT EXISTS (SELECT 1 FROM found AS f "
    "WHERE f.k = r.k AND (f.name = r.sid OR f.status != 'DELETED')) "
    "ON CONFLICT DO NOTHING RETURNING id) "
    "SELECT f.*, false FROM found AS f UNION ALL "
    "SELECT r.k, r.new_id, r.sid, 'RUNNING', NULL, NULL, NULL, r.now, r.now, 0, true "
    "FROM ins JOIN req AS r ON r.new_id = ins.id"
)

Rows = list[Any]
"""A lookup's rows, as ``_SESSION_PG_CREATE`` returns them: found tasks, then the new one flagged."""


class _Lookup:
    __slots__ = ("fut", "new_id", "now", "session_id", "tenant")

    def __init__(self, session_id: str, tenant: str, new_id: str, now: int) -> None:
        self.session_id, self.tenant, self.new_id, self.now = session_id, tenant, new_id, now
        self.fut: asyncio.Future[Rows] = asyncio.get_running_loop().create_future()


class PgSessions:
    """One grouped statement in flight at a time, carrying every lookup queued meanwhile; a lookup
    that finds nothing queued and nothing in flight runs alone at once (``alone``)."""

    def __init__(
        self,
        fetch: Callable[..., Awaitable[list[Any]]],
        alone: Callable[[str, str, str, int], Awaitable[Rows]],
    ) -> None:
        self._fetch, self._alone = fetch, alone
        self._queue: list[_Lookup] = []
        self._runner: asyncio.Task[None] | None = None

    async def find_or_create(self, session_id: str, tenant: str, new_id: str, now: int) -> Rows:
        lookup = _Lookup(session_id, tenant, new_id, now)
        self._queue.append(lookup)
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(self._drain())
        try:
            return await asyncio.shield(lookup.fut)
        except asyncio.CancelledError:
            lookup.fut.add_done_callback(lambda f: f.cancelled() or f.exception())
            raise

    async def _drain(self) -> None:
        try:
            # One loop turn first: the requests arriving together all queue before the statement.
            await asyncio.sleep(0)
            while self._queue:
                batch: list[_Lookup] = []
                later: list[_Lookup] = []
                keys: set[tuple[str, str]] = set()
                for lookup in self._queue:
                    key = (lookup.session_id, lookup.tenant)
                    if key in keys or len(batch) >= _MAX_GROUP:
                        later.append(lookup)
                    else:
                        keys.add(key)
                        batch.append(lookup)
                self._queue = later
                if len(batch) == 1:
                    await self._one(batch[0])
                else:
                    await self._group(batch)
        finally:
            self._runner = None

    async def _one(self, lookup: _Lookup) -> None:
        try:
            rows = await self._alone(lookup.session_id, lookup.tenant, lookup.new_id, lookup.now)
        except Exception as exc:
            _settle(lookup, exc=exc)
        else:
            _settle(lookup, rows)

    async def _group(self, batch: list[_Lookup]) -> None:
        args: list[list[Any]] = [[], [], [], []]
        for lookup in batch:
            args[0].append(lookup.session_id)
            args[1].append(lookup.tenant)
            args[2].append(lookup.new_id)
            args[3].append(lookup.now)
        try:
            rows = await self._fetch(_GROUP_SQL, *args)
        except Exception:
            for lookup in batch:  # nothing of the statement was written: each again, alone
                await self._one(lookup)
            return
        found: list[Rows] = [[] for _ in batch]
        for row in rows:
            found[row[0] - 1].append(tuple(row)[1:])
        for lookup, own in zip(batch, found, strict=True):
            own.sort(key=lambda r: r[9])  # the new task's row last, as ``_SESSION_PG_CREATE`` has it
            _settle(lookup, own)


def _settle(lookup: _Lookup, rows: Rows | None = None, *, exc: BaseException | None = None) -> None:
    if lookup.fut.done():
        return
    if exc is None:
        lookup.fut.set_result(rows if rows is not None else [])
    else:
        lookup.fut.set_exception(exc)
