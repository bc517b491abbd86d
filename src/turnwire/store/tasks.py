"""Task queries of the SQL store (mixed into ``SqlStore``)."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import uuid
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from turnwire.errors import InputError
from turnwire.store.base import TASK_STATUSES, Idempotency, SessionTask
from turnwire.store.clock import now_us, to_iso
from turnwire.store.conversation_list import AGENT_KEY
from turnwire.store.engine import Database
from turnwire.store.errors import ConflictError, NotFoundError
from turnwire.store.filters import jsonb_of
from turnwire.store.pg_sessions import PgSessions
from turnwire.store.schema import tasks

T = tasks.c
log = logging.getLogger("turnwire.store")
_SELECT = sa.select(
    T.id, T.name, T.status, T.status_reason, T.params, T.task_metadata, T.created_at, T.updated_at
)
# Every turn's statements on SQLite, as text run on the store's SQLite threads (``sqlite_threads``).
# A task's columns, then its message clock (``last_created_at``).
_SESSION_SQLITE = (
    "SELECT id, name, status, status_reason, params, task_metadata, created_at, updated_at, "
    "last_created_at FROM tasks WHERE (id = ? OR name = ?) AND tenant = ?"
)
_GET_SQLITE = (
    "SELECT id, name, status, status_reason, params, task_metadata, created_at, updated_at "
    "FROM tasks WHERE id = ?"
)
_GET_OF_SQLITE = _GET_SQLITE + " AND tenant = ?"
_CREATE_SQLITE = (
    "INSERT INTO tasks (id, name, status, task_metadata, created_at, updated_at, tenant) "
    "VALUES (?, ?, 'RUNNING', ?, ?, ?, ?)"
)
# The same on PostgreSQL, straight on asyncpg (``Database.pg_fetch``).
_SESSION_PG = _SESSION_SQLITE.replace("id = ? OR name = ?", "id = $1 OR name = $1").replace("= ?", "= $2")
# The lookup and, when it finds nothing ``_pick_session`` would take or refuse, the insert, in one
# statement; the new task's row comes last, flagged. A name taken concurrently inserts nothing.
_SESSION_PG_CREATE = (
    "WITH found AS (SELECT id, name, status, status_reason, params, task_metadata, created_at, "
    "updated_at, last_created_at FROM tasks WHERE (id = $1 OR name = $1) AND tenant = $2), "
    "ins AS (INSERT INTO tasks (id, name, status, task_metadata, created_at, updated_at, tenant) "
    "SELECT $3, $1, 'RUNNING', $5, $4, $4, $2 "
    "WHERE NOT EXISTS (SELECT 1 FROM found WHERE name = $1 OR status != 'DELETED') "
    "ON CONFLICT DO NOTHING RETURNING id) "
    "SELECT *, false FROM found UNION ALL "
    "SELECT id, $1, 'RUNNING', NULL, NULL, $5::text, $4, $4, 0, true FROM ins"
)
TASK_ORDER_COLUMNS = {"created_at": T.created_at, "updated_at": T.updated_at, "name": T.name, "id": T.id}
MOVABLE = ("RUNNING", "INTERRUPTED")


def _json(text: str | None) -> Any:
    return None if text is None else orjson.loads(text)


def _task(row: Any) -> dict[str, Any]:
    return {
        "id": row[0],
        "name": row[1],
        "status": row[2],
        "status_reason": row[3],
        "params": _json(row[4]),
        "task_metadata": _json(row[5]),
        "created_at": to_iso(row[6]),
        "updated_at": to_iso(row[7]),
        "cleaned_at": None,
    }


def _pick_session(rows: Any, session_id: str) -> Any:
    """Of the rows whose id or name is ``session_id``: the live one with that id, else the live one
    with that name, else ``None``; ``ConflictError`` when only a deleted task holds the name."""
    by_name = None
    for row in rows:
        if row[0] == session_id and row[2] != "DELETED":
            return row
        if row[1] == session_id:
            by_name = row
    if by_name is None:
        return None
    if by_name[2] == "DELETED":
        raise ConflictError(f"Task name '{session_id}' belongs to a deleted task")
    return by_name


def _fetch(conn: sqlite3.Connection, sql: str, params: Any) -> list[Any]:
    """On a SQLite thread: the rows of one statement."""
    return conn.execute(sql, params).fetchall()


def _find_or_create_sqlite(
    conn: sqlite3.Connection, session_id: str, tenant: str, task_id: str, now: int, metadata: str | None
) -> Any:
    """One SQLite write unit: the session's task as ``_pick_session`` finds it, else ``None`` after
    inserting the new task ``task_id`` named ``session_id`` (with ``metadata``, JSON text)."""
    rows = conn.execute(_SESSION_SQLITE, (session_id, session_id, tenant)).fetchall()
    found = _pick_session(rows, session_id)
    if found is None:
        conn.execute(_CREATE_SQLITE, (task_id, session_id, metadata, now, now, tenant))
    return found


def session_metadata(agent: str | None) -> str | None:
    """A session's new task's metadata as JSON text: the agent that serves its first turn, which the
    conversation list answers (``conversation_list.AGENT_KEY``); written with the row, not after."""
    return None if agent is None else orjson.dumps({AGENT_KEY: agent}).decode()


def _created(
    creating: dict[tuple[str, str], dict[str, Any]],
    ids: dict[str, tuple[str, str]],
    key: tuple[str, str],
    task_id: str,
    fut: Any,
) -> None:
    """``session_task_soon``'s write is done: forget it; log it if it did not create ``task_id``."""
    del creating[key], ids[task_id]
    if fut.cancelled():
        return
    exc = fut.exception()
    if exc is not None:
        log.error("creating task %s of session %r failed: %r; its turn is not stored", task_id, key[1], exc)
    elif fut.result() is not None:
        log.error("session %r was created elsewhere first: turn on task %s not stored", key[1], task_id)


def _dump(value: Any) -> str | None:
    return None if value is None else orjson.dumps(value).decode()


def _of(tenant: str | None) -> list[Any]:
    """The condition "belongs to ``tenant``" (none for ``None``: any tenant)."""
    return [] if tenant is None else [T.tenant == tenant]


class TaskQueries:
    db: Database
    _pg_sessions: PgSessions | None = None
    _creating: dict[tuple[str, str], dict[str, Any]] | None = None
    """SQLite: the sessions' tasks ``session_task_soon`` queued and not yet written, by (tenant, name)."""
    _creating_ids: dict[str, tuple[str, str]] | None = None
    """The same, by task id: its (tenant, name)."""

    def pending_task(self, task_id: str, tenant: str | None = None) -> dict[str, Any] | None:
        """A task ``session_task_soon`` queued that is not written yet (``None``: no such task, or
        another tenant's): lookups by id answer it meanwhile, as if it were written."""
        key = self._creating_ids.get(task_id) if self._creating_ids else None
        if key is None or (tenant is not None and key[0] != tenant) or self._creating is None:
            return None
        return dict(self._creating[key])

    async def _idempotent(self, scope: str, idem: Idempotency | None, work: Any) -> Any:
        raise NotImplementedError  # provided by SqlStore

    async def _find(self, conn: AsyncConnection, cond: Any, key: str) -> dict[str, Any]:
        row = (await conn.execute(_SELECT.where(cond))).first()
        if row is None or row[2] == "DELETED":
            raise NotFoundError(key)
        return _task(row)

    async def create_task(
        self,
        *,
        name: str | None = None,
        params: dict[str, Any] | None = None,
        task_metadata: dict[str, Any] | None = None,
        idempotency: Idempotency | None = None,
        tenant: str = "",
    ) -> dict[str, Any]:
        async def work(conn: AsyncConnection) -> dict[str, Any]:
            now = now_us()
            if name is not None:
                row = (await conn.execute(_SELECT.where(T.name == name, T.tenant == tenant))).first()
                if row is not None:
                    if row[2] == "DELETED":
                        raise ConflictError(f"Task name '{name}' belongs to a deleted task")
                    if params is not None:
                        await conn.execute(
                            sa.update(tasks)
                            .where(T.id == row[0])
                            .values(params=_dump(params), updated_at=now)
                        )
                    return await self._find(conn, T.id == row[0], row[0])
            task_id = str(uuid.uuid4())
            values = {
                "id": task_id,
                "name": name,
                "status": "RUNNING",
                "params": _dump(params),
                "task_metadata": _dump(task_metadata),
                "created_at": now,
                "updated_at": now,
                "tenant": tenant,
            }
            await conn.execute(tasks.insert().values(**values))
            return await self._find(conn, T.id == task_id, task_id)

        try:
            return await self._idempotent("tasks", idempotency, work)
        except IntegrityError:
            if name is None:
                raise
            # Lost a race to create the same name: the other writer's task is the one to return.
            return await self._idempotent("tasks", idempotency, work)

    async def session_task(
        self, session_id: str, *, tenant: str = "", agent: str | None = None
    ) -> SessionTask:
        """The task of ``tenant`` whose id is ``session_id``, else its live one named ``session_id``,
        else a new task named ``session_id`` (recording ``agent`` as its agent); whether this call
        created it, and its message clock.
        SQLite: one read when the task exists, one write unit more when it does not.
        ``ConflictError`` if the name belongs to a deleted task. PostgreSQL: one statement either
        way."""
        now, metadata = now_us(), session_metadata(agent)
        if self.db.dialect == "postgresql":
            task_id = str(uuid.uuid4())
            if self._pg_sessions is None:
                self._pg_sessions = PgSessions(self.db.pg_fetch, self._session_pg_alone)
            rows = await self._pg_sessions.find_or_create(session_id, tenant, task_id, now, metadata)
            if rows and rows[-1][9]:
                return SessionTask(_task(rows[-1]), True, 0)
            found = _pick_session(rows, session_id)
            if found is None:  # a concurrent request created the name since this statement's snapshot
                found = await self._session_row(session_id, tenant)
                if found is None:
                    raise ConflictError(f"Task name '{session_id}' could not be created")
            return SessionTask(_task(found), False, found[8])
        # SQLite: the lookup at once on the event loop's connection (a few µs); a session not found
        # is looked up again and created in one quick write unit (``sqlite_threads``), where no
        # other writer can come between the two.
        rows = self.db.sqlite_read_now(_fetch, _SESSION_SQLITE, (session_id, session_id, tenant))
        found = _pick_session(rows, session_id)
        if found is None:
            task_id, create = str(uuid.uuid4()), _find_or_create_sqlite
            found = await self.db.sqlite_write(create, session_id, tenant, task_id, now, metadata, quick=True)
            if found is None:
                new = (task_id, session_id, "RUNNING", None, None, metadata, now, now)
                return SessionTask(_task(new), True, 0)
        return SessionTask(_task(found), False, found[8])

    async def session_task_soon(
        self, session_id: str, *, tenant: str = "", agent: str | None = None
    ) -> SessionTask:
        """``session_task`` for a turn about to start, which need not wait for a new task's row.

        SQLite: a task not found by the lookup is created by a quick write unit queued now and not
        waited for — behind whatever this process queued before it and ahead of every write queued
        after it (``sqlite_threads`` keeps that order), so the turn's own writes, which follow,
        find it; the turn's first frame does not wait for the writer thread (busy with other
        turns' flushes under load). Until it is written, a lookup of the same session here answers
        the same task (one task per session, as ``session_task``). If the write fails (or another
        process created the session meanwhile), it is logged, and the turn's writes fail on the
        missing task: its stream ends with its format's error frame (``TurnNotStored``), never
        as a stored turn. PostgreSQL: ``session_task`` (one statement)."""
        if self.db.dialect != "sqlite":
            return await self.session_task(session_id, tenant=tenant, agent=agent)
        rows = self.db.sqlite_read_now(_fetch, _SESSION_SQLITE, (session_id, session_id, tenant))
        found = _pick_session(rows, session_id)
        if found is not None:
            return SessionTask(_task(found), False, found[8])
        if self._creating is None or self._creating_ids is None:
            self._creating, self._creating_ids = {}, {}
        creating, ids = self._creating, self._creating_ids
        key = (tenant, session_id)
        pending = creating.get(key)
        if pending is not None:
            return SessionTask(dict(pending), False, 0)
        now, metadata = now_us(), session_metadata(agent)
        task_id = str(uuid.uuid4())
        task = _task((task_id, session_id, "RUNNING", None, None, metadata, now, now))
        creating[key], ids[task_id] = task, key
        create = _find_or_create_sqlite
        write = self.db.sqlite_write(create, session_id, tenant, task_id, now, metadata, quick=True)
        unit = asyncio.ensure_future(write)  # already a future: returned as it is
        unit.add_done_callback(lambda fut: _created(creating, ids, key, task_id, fut))
        return SessionTask(dict(task), True, 0)

    async def _session_pg_alone(
        self, session_id: str, tenant: str, task_id: str, now: int, metadata: str | None
    ) -> list[Any]:
        return await self.db.pg_fetch(_SESSION_PG_CREATE, session_id, tenant, task_id, now, metadata)

    async def _session_row(self, session_id: str, tenant: str) -> Any:
        rows = await self.db.pg_fetch(_SESSION_PG, session_id, tenant)
        return _pick_session(rows, session_id)

    async def get_task(self, task_id: str, *, tenant: str | None = None) -> dict[str, Any]:
        if self.db.dialect == "sqlite":
            # Every tenant-scoped request asks this first (``TenantStore.owns``): a lookup by key at
            # once on the loop's connection, not a pool checkout, a greenlet and a thread hand-off.
            if tenant is None:
                rows = self.db.sqlite_read_now(_fetch, _GET_SQLITE, (task_id,))
            else:
                rows = self.db.sqlite_read_now(_fetch, _GET_OF_SQLITE, (task_id, tenant))
            if not rows and (pending := self.pending_task(task_id, tenant)) is not None:
                return pending
            if not rows or rows[0][2] == "DELETED":
                raise NotFoundError(task_id)
            return _task(rows[0])
        async with self.db.read() as conn:
            return await self._find(conn, sa.and_(T.id == task_id, *_of(tenant)), task_id)

    async def get_task_by_name(self, name: str, *, tenant: str = "") -> dict[str, Any]:
        async with self.db.read() as conn:
            return await self._find(conn, sa.and_(T.name == name, T.tenant == tenant), name)

    async def list_tasks(
        self,
        *,
        status: str | None = None,
        task_metadata: dict[str, Any] | None = None,
        limit: int = 50,
        offset: int = 0,
        order_by: str = "created_at",
        descending: bool = True,
        tenant: str | None = None,
    ) -> list[dict[str, Any]]:
        col = TASK_ORDER_COLUMNS.get(order_by)
        if col is None:
            raise InputError(f"cannot order by {order_by!r}", loc=("query", "order_by"))
        if status == "DELETED":
            raise InputError("deleted tasks cannot be listed", loc=("query", "status"))
        if status is not None and status not in TASK_STATUSES:
            raise InputError(f"unknown status {status!r}", loc=("query", "status"))
        cond = [T.status == status] if status else [T.status != "DELETED"]
        cond += _of(tenant)
        for key, value in (task_metadata or {}).items():
            if self.db.dialect == "postgresql":
                doc = jsonb_of(T.task_metadata)
                cond.append(
                    doc.contains(sa.cast(sa.literal(orjson.dumps({key: value}).decode()), postgresql.JSONB))
                )
            elif isinstance(value, str):
                path = '$."' + key.replace('"', '\\"') + '"'
                cond.append(
                    sa.and_(
                        T.task_metadata.op("->>")(path) == value,
                        sa.func.json_type(T.task_metadata, path) == "text",
                    )
                )
            else:
                path = '$."' + key.replace('"', '\\"') + '"'
                cond.append(T.task_metadata.op("->")(path) == orjson.dumps(value).decode())
        query = (
            _SELECT.where(*cond)
            .order_by(col.desc() if descending else col.asc(), T.id)
            .limit(limit)
            .offset(offset)
        )
        async with self.db.read() as conn:
            return [_task(r) for r in await conn.execute(query)]

    async def delete_task(self, task_id: str, *, tenant: str | None = None) -> dict[str, Any]:
        async with self.db.write() as conn:
            done = await conn.execute(
                sa.update(tasks)
                .where(T.id == task_id, T.status != "DELETED", *_of(tenant))
                .values(status="DELETED", updated_at=now_us())
            )
            if done.rowcount == 0:
                raise NotFoundError(task_id)
        return {"id": task_id, "message": f"Task '{task_id}' deleted"}

    async def transition_task(
        self, task_id: str, status: str, reason: str | None = None, *, tenant: str | None = None
    ) -> dict[str, Any]:
        async with self.db.write() as conn:
            # Compare-and-swap on the movable statuses: a concurrent transition makes this one miss.
            done = await conn.execute(
                sa.update(tasks)
                .where(T.id == task_id, T.status.in_(MOVABLE), *_of(tenant))
                .values(status=status, status_reason=reason, updated_at=now_us())
            )
            if done.rowcount == 0:
                current = await self._find(conn, sa.and_(T.id == task_id, *_of(tenant)), task_id)
                raise ConflictError(
                    f"Task '{task_id}' is {current['status']} and cannot be transitioned to {status}"
                )
            return await self._find(conn, T.id == task_id, task_id)
