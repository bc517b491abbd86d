"""Message queries of the SQL store (mixed into ``SqlStore``)."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from turnwire.errors import InputError
from turnwire.formats.agentex import render_messages
from turnwire.model import Message
from turnwire.store.base import Idempotency, Page
from turnwire.store.clock import MS, new_ids, now_us, to_iso
from turnwire.store.cursor import Position, decode_cursor, encode_cursor
from turnwire.store.engine import Database
from turnwire.store.errors import ConflictError, NotFoundError
from turnwire.store.filters import MessageFilter, filters_clause
from turnwire.store.schema import messages, tasks

_dumps = orjson.dumps
_loads = orjson.loads
M = messages.c
ORDER_COLUMNS = {"created_at": M.created_at, "updated_at": M.updated_at, "id": M.id}
_LIVE = tasks.c.status != "DELETED"
# The batch insert bypasses SQLAlchemy's parameter processing (the per-row cost of a 1,000-row
# batch); both drivers take positional tuples straight into their executemany.
_COLUMNS = "id, task_id, seq, content, streaming_status, created_at, updated_at, writer_id"
INSERT_SQL = {
    "sqlite": f"INSERT INTO messages ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    "postgresql": f"INSERT INTO messages ({_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
}
_UPDATE_CHUNK = 5_000  # 2 parameters a row: within SQLite's and asyncpg's 32,767


@functools.lru_cache(maxsize=64)
def _update_sql(dialect: str, n: int) -> str:
    """One UPDATE of ``n`` messages of one task from a VALUES list (id, content), returning what the
    batch answer needs. Parameters: now, then id and content per row, then the task id."""
    if dialect == "sqlite":
        rows = ", ".join(["(?, ?)"] * n)
        return (
            "UPDATE messages SET content = v.column2, updated_at = max(messages.updated_at + 1, ?) "
            f"FROM (VALUES {rows}) AS v WHERE messages.id = v.column1 AND messages.task_id = ? "
            "RETURNING messages.id, messages.streaming_status, messages.created_at, messages.updated_at"
        )
    rows = ", ".join(f"(${i}, ${i + 1})" for i in range(2, 2 * n + 2, 2))
    return (
        "UPDATE messages AS m SET content = v.c, updated_at = GREATEST(m.updated_at + 1, $1) "
        f"FROM (VALUES {rows}) AS v(id, c) WHERE m.id = v.id AND m.task_id = ${2 * n + 2} "
        "RETURNING m.id, m.streaming_status, m.created_at, m.updated_at"
    )


def _refusal(task_id: str, missed: list[str], owners: Mapping[str, str]) -> Exception:
    """Why a batch update missed ``missed``: the first that does not exist, else those of another task."""
    for mid in missed:
        if mid not in owners:
            return NotFoundError(mid)
    return ConflictError(
        f"Messages {', '.join(missed)} do not belong to task '{task_id}'; nothing was updated",
        {"message_ids": missed},
    )


# base = max(now, last + 1 ms) (the first form) or the caller's (the second); the task's last stamp
# becomes base + span. Parameters: count, then MS, now, span / created_at + span, then the task id.
_ALLOCATE_SQLITE = (
    "UPDATE tasks SET next_seq = next_seq + ?, last_created_at = max(last_created_at + ?, ?) + ? "
    "WHERE id = ? AND status != 'DELETED' RETURNING next_seq, last_created_at",
    "UPDATE tasks SET next_seq = next_seq + ?, last_created_at = max(last_created_at, ?) "
    "WHERE id = ? AND status != 'DELETED' RETURNING next_seq, last_created_at",
)


def _create_sqlite(
    conn: sqlite3.Connection,
    task_id: str,
    contents: Sequence[dict[str, Any]],
    texts: list[str],
    created_at: int | None,
    streaming_status: str | None,
    writer: str | None,
) -> list[dict[str, Any]]:
    """``create_messages`` as one transaction of the SQLite writer thread (``texts``: the contents
    as JSON)."""
    n = len(texts)
    span = (n - 1) * MS
    if created_at is None:
        found = conn.execute(_ALLOCATE_SQLITE[0], (n, MS, now_us(), span, task_id)).fetchall()
    else:
        found = conn.execute(_ALLOCATE_SQLITE[1], (n, created_at + span, task_id)).fetchall()
    if not found:
        raise NotFoundError(task_id)
    seq = found[0][0] - n
    base = created_at if created_at is not None else found[0][1] - span
    ids = new_ids(n)
    rows = [
        (mid, task_id, seq + i, text, streaming_status, base + i * MS, base + i * MS, writer)
        for i, (mid, text) in enumerate(zip(ids, texts, strict=True))
    ]
    conn.executemany(INSERT_SQL["sqlite"], rows)
    out = []
    for mid, content, row in zip(ids, contents, rows, strict=True):
        iso = to_iso(row[5])
        out.append(
            {
                "id": mid,
                "task_id": task_id,
                "content": content,
                "streaming_status": streaming_status,
                "created_at": iso,
                "updated_at": iso,
            }
        )
    return out


_TASK_STATUS_OF = "SELECT status FROM tasks WHERE id = ? AND tenant = ?"


def _update_sqlite(
    conn: sqlite3.Connection, task_id: str, ids: list[str], texts: list[str], tenant: str | None = None
) -> dict[str, Any]:
    """``update_messages``' writes as one transaction of the SQLite writer thread: by id, the row
    (id, status, created, updated) of each message updated; raises (so nothing is kept) if any
    id is missing or another task's, or if ``tenant`` is given and the task is not a live one of
    that tenant's."""
    if tenant is not None:
        row = conn.execute(_TASK_STATUS_OF, (task_id, tenant)).fetchone()
        if row is None or row[0] == "DELETED":
            raise NotFoundError(task_id)
    found: dict[str, Any] = {}
    for start in range(0, len(ids), _UPDATE_CHUNK):
        chunk = ids[start : start + _UPDATE_CHUNK]
        params: list[Any] = [now_us()]
        for mid, text in zip(chunk, texts[start : start + _UPDATE_CHUNK], strict=True):
            params += (mid, text)
        params.append(task_id)
        for row in conn.execute(_update_sql("sqlite", len(chunk)), params).fetchall():
            found[row[0]] = row
    if len(found) != len(ids):
        missed = [mid for mid in ids if mid not in found]
        owners: dict[str, str] = {}
        for start in range(0, len(missed), _UPDATE_CHUNK):
            chunk = missed[start : start + _UPDATE_CHUNK]
            marks = ", ".join("?" * len(chunk))
            owners.update(conn.execute(f"SELECT id, task_id FROM messages WHERE id IN ({marks})", chunk))
        raise _refusal(task_id, missed, owners)
    return found


_STATUS_JSON = {None: "null", "IN_PROGRESS": '"IN_PROGRESS"', "DONE": '"DONE"'}


def _records_json(task_id: str, ids: list[str], texts: list[str], found: Mapping[str, Any]) -> bytes:
    """The JSON array of ``update_messages``' records, byte for byte what ``orjson.dumps`` makes of
    them, written from the contents' JSON (``texts``, already made for the statement) instead of
    building 1,000 dicts and serialising every content a second time."""
    task = _dumps(task_id).decode()
    joined = "".join(ids)
    # Store ids are hex; anything else is quoted by orjson (escapes, non-ASCII).
    quoted = ids if joined.isascii() and joined.isalnum() else [_dumps(mid).decode()[1:-1] for mid in ids]
    status_json = _STATUS_JSON
    iso = to_iso
    parts = []
    for mid, text, quoted_id in zip(ids, texts, quoted, strict=True):
        row = found[mid]
        status = status_json.get(row[1]) or _dumps(row[1]).decode()
        parts.append(
            f'{{"id":"{quoted_id}","task_id":{task},"content":{text},"streaming_status":{status},'
            f'"created_at":"{iso(row[2])}","updated_at":"{iso(row[3])}"}}'
        )
    return f"[{','.join(parts)}]".encode()


_SELECT = sa.select(M.id, M.task_id, M.content, M.streaming_status, M.created_at, M.updated_at, M.seq)


def _record(row: Any) -> dict[str, Any]:
    return {
        "id": row[0],
        "task_id": row[1],
        "content": _loads(row[2]),
        "streaming_status": row[3],
        "created_at": to_iso(row[4]),
        "updated_at": to_iso(row[5]),
    }


class MessageQueries:
    db: Database
    writer_id: str | None

    async def _idempotent(self, scope: str, idem: Idempotency | None, work: Any) -> Any:
        raise NotImplementedError  # provided by SqlStore

    async def _idempotent_sqlite(self, scope: str, idem: Idempotency, fn: Any, *args: Any) -> Any:
        raise NotImplementedError  # provided by SqlStore

    async def _allocate(
        self, conn: AsyncConnection, task_id: str, n: int, created_at: int | None
    ) -> tuple[int, int]:
        """Reserve ``n`` sequence numbers and a time base under the task row's lock, in one
        statement (it opens every write transaction, so it is on every write's path)."""
        span = (n - 1) * MS
        last = tasks.c.last_created_at
        if created_at is None:
            # base = max(now, last + 1 ms); the task's last stamp becomes base + span.
            now = now_us()
            new_last = sa.case((last + MS > now, last + MS), else_=now) + span
        else:
            new_last = sa.case((last > created_at + span, last), else_=created_at + span)
        row = (
            await conn.execute(
                sa.update(tasks)
                .where(tasks.c.id == task_id, _LIVE)
                .values(next_seq=tasks.c.next_seq + n, last_created_at=new_last)
                .returning(tasks.c.next_seq, tasks.c.last_created_at)
            )
        ).first()
        if row is None:
            raise NotFoundError(task_id)
        next_seq, stamp = row
        return next_seq - n, created_at if created_at is not None else stamp - span

    async def create_messages(
        self,
        task_id: str,
        contents: Sequence[dict[str, Any]],
        *,
        created_at: int | None = None,
        streaming_status: str | None = None,
        idempotency: Idempotency | None = None,
        owned: bool = False,
    ) -> list[dict[str, Any]]:
        if not contents:
            await self.get_task(task_id)  # type: ignore[attr-defined]
            return []

        writer = self.writer_id if owned else None
        if self.db.dialect == "sqlite":
            texts = [_dumps(c).decode() for c in contents]
            args = (task_id, contents, texts, created_at, streaming_status, writer)
            if idempotency is None:
                return await self.db.sqlite_write(_create_sqlite, *args)
            return await self._idempotent_sqlite("messages", idempotency, _create_sqlite, *args)

        async def work(conn: AsyncConnection) -> list[dict[str, Any]]:
            n = len(contents)
            seq, base = await self._allocate(conn, task_id, n, created_at)
            rows, out = [], []
            for i, (mid, content) in enumerate(zip(new_ids(n), contents, strict=True)):
                ts = base + i * MS
                rows.append(
                    (mid, task_id, seq + i, _dumps(content).decode(), streaming_status, ts, ts, writer)
                )
                iso = to_iso(ts)
                out.append(
                    {
                        "id": mid,
                        "task_id": task_id,
                        "content": content,
                        "streaming_status": streaming_status,
                        "created_at": iso,
                        "updated_at": iso,
                    }
                )
            await conn.exec_driver_sql(INSERT_SQL["postgresql"], rows)
            return out

        return await self._idempotent("messages", idempotency, work)

    async def append_messages(
        self, task_id: str, messages_: Sequence[Message], *, streaming_status: str | None = "DONE"
    ) -> list[dict[str, Any]]:
        return await self.create_messages(
            task_id, render_messages(messages_), streaming_status=streaming_status
        )

    async def get_message(self, message_id: str) -> dict[str, Any]:
        async with self.db.read() as conn:
            row = (await conn.execute(_SELECT.where(M.id == message_id))).first()
        if row is None:
            raise NotFoundError(message_id)
        return _record(row)

    async def update_message(
        self,
        message_id: str,
        *,
        task_id: str | None,
        content: dict[str, Any] | None = None,
        streaming_status: str | None = None,
    ) -> dict[str, Any]:
        now = now_us()
        values: dict[str, Any] = {
            # updated_at strictly advances even if a caller's created_at lies in the future.
            "updated_at": sa.case((M.updated_at >= now, M.updated_at + 1), else_=now)
        }
        if content is not None:
            values["content"] = _dumps(content).decode()
        if streaming_status is not None:
            values["streaming_status"] = streaming_status
        cond = [M.id == message_id]
        if task_id is not None:
            cond.append(M.task_id == task_id)
        async with self.db.write() as conn:
            row = (
                await conn.execute(
                    sa.update(messages)
                    .where(*cond)
                    .values(**values)
                    .returning(M.id, M.task_id, M.content, M.streaming_status, M.created_at, M.updated_at)
                )
            ).first()
            if row is None:
                owner = (await conn.execute(sa.select(M.task_id).where(M.id == message_id))).scalar()
                if owner is None:
                    raise NotFoundError(message_id)
                raise ConflictError(
                    f"Message '{message_id}' belongs to another task, not '{task_id}'",
                    {"message_id": message_id},
                )
        return _record(row)

    async def _apply_updates(
        self, task_id: str, ids: list[str], texts: list[str], tenant: str | None
    ) -> dict[str, Any]:
        """Write ``texts`` (contents as JSON) over messages ``ids`` of ``task_id`` in one
        transaction; by id, the row (id, status, created, updated) of each. Raises, writing
        nothing, if any id is missing or another task's, or the task is not ``tenant``'s."""
        dialect = self.db.dialect
        if dialect == "sqlite":
            return await self.db.sqlite_write(_update_sqlite, task_id, ids, texts, tenant)
        found: dict[str, Any] = {}
        async with self.db.write() as conn:
            if tenant is not None:
                query = sa.select(tasks.c.status).where(tasks.c.id == task_id, tasks.c.tenant == tenant)
                status = (await conn.execute(query)).scalar()
                if status is None or status == "DELETED":
                    raise NotFoundError(task_id)
            # Apply first, in one statement per chunk; a row count short of the batch means some id
            # is missing or another task's: raising rolls everything back, then says which.
            for start in range(0, len(ids), _UPDATE_CHUNK):
                chunk = ids[start : start + _UPDATE_CHUNK]
                params: list[Any] = [now_us()]
                for mid, text in zip(chunk, texts[start : start + _UPDATE_CHUNK], strict=True):
                    params += (mid, text)
                params.append(task_id)
                result = await conn.exec_driver_sql(_update_sql(dialect, len(chunk)), tuple(params))
                found.update((r[0], r) for r in result)
            if len(found) != len(ids):
                await self._refuse_update(conn, task_id, [mid for mid in ids if mid not in found])
        return found

    async def update_messages(
        self, task_id: str, updates: Mapping[str, dict[str, Any]], *, tenant: str | None = None
    ) -> list[dict[str, Any]]:
        ids = list(updates)
        if not ids:
            if tenant is not None:
                await self.get_task(task_id, tenant=tenant)  # type: ignore[attr-defined]
            return []
        texts = [_dumps(c).decode() for c in updates.values()]
        found = await self._apply_updates(task_id, ids, texts, tenant)
        out = []
        for mid, content in updates.items():
            row = found[mid]
            out.append(
                {
                    "id": mid,
                    "task_id": task_id,
                    "content": content,
                    "streaming_status": row[1],
                    "created_at": to_iso(row[2]),
                    "updated_at": to_iso(row[3]),
                }
            )
        return out

    async def update_messages_json(
        self, task_id: str, updates: Mapping[str, dict[str, Any]], *, tenant: str | None = None
    ) -> bytes:
        ids = list(updates)
        if not ids:
            if tenant is not None:
                await self.get_task(task_id, tenant=tenant)  # type: ignore[attr-defined]
            return b"[]"
        texts = [_dumps(c).decode() for c in updates.values()]
        return _records_json(task_id, ids, texts, await self._apply_updates(task_id, ids, texts, tenant))

    async def _refuse_update(self, conn: AsyncConnection, task_id: str, missed: list[str]) -> None:
        """Raise for ids the batch update did not reach: ``NotFoundError`` for the first that does
        not exist, else ``ConflictError`` naming those of another task."""
        owners = dict(list(await conn.execute(sa.select(M.id, M.task_id).where(M.id.in_(missed)))))
        raise _refusal(task_id, missed, owners)

    async def update_contents(self, task_id: str, updates: Mapping[str, dict[str, Any]]) -> None:
        ids = list(updates)
        if not ids:
            return
        now = now_us()
        stmt = (
            sa.update(messages)
            .where(M.id == sa.bindparam("mid"), M.task_id == task_id)
            .values(
                content=sa.bindparam("c"),
                updated_at=sa.case((M.updated_at >= now, M.updated_at + 1), else_=now),
            )
        )
        async with self.db.write() as conn:
            await conn.execute(stmt, [{"mid": mid, "c": _dumps(updates[mid]).decode()} for mid in ids])

    def _where(self, task_id: str, filters: list[MessageFilter] | None) -> list[Any]:
        cond: list[Any] = [M.task_id == task_id]
        clause = filters_clause(filters or [], messages, self.db.dialect)
        if clause is not None:
            cond.append(clause)
        return cond

    async def list_messages(
        self,
        task_id: str,
        *,
        limit: int = 50,
        offset: int = 0,
        order_by: str = "created_at",
        descending: bool = True,
        filters: list[MessageFilter] | None = None,
    ) -> list[dict[str, Any]]:
        col = ORDER_COLUMNS.get(order_by)
        if col is None:
            raise InputError(
                f"cannot order by {order_by!r}; use one of {', '.join(ORDER_COLUMNS)}",
                loc=("query", "order_by"),
            )
        query = (
            _SELECT.where(*self._where(task_id, filters))
            .order_by(col.desc() if descending else col.asc(), M.seq.asc())
            .limit(limit)
            .offset(offset)
        )
        async with self.db.read() as conn:
            return [_record(r) for r in await conn.execute(query)]

    async def page_messages(
        self,
        task_id: str,
        *,
        limit: int = 50,
        cursor: str | None = None,
        newer: bool = False,
        filters: list[MessageFilter] | None = None,
    ) -> Page:
        cond = self._where(task_id, filters)
        pos = decode_cursor(task_id, cursor) if cursor else None
        newer = newer and pos is not None
        if pos is not None:
            t, s = pos.created_at, pos.seq
            # The redundant bound on created_at lets the index seek to the cursor.
            if newer:
                cond += [M.created_at >= t, sa.or_(M.created_at > t, sa.and_(M.created_at == t, M.seq < s))]
            else:
                cond += [M.created_at <= t, sa.or_(M.created_at < t, sa.and_(M.created_at == t, M.seq > s))]
        # Newer pages walk upwards from the cursor, so they read in the reverse order.
        order = (M.created_at.asc(), M.seq.desc()) if newer else (M.created_at.desc(), M.seq.asc())
        async with self.db.read() as conn:
            rows = list(await conn.execute(_SELECT.where(*cond).order_by(*order).limit(limit + 1)))
        has_more = len(rows) > limit
        rows = rows[:limit]
        if newer:
            rows.reverse()
        edge = (rows[0] if newer else rows[-1]) if rows else None
        next_cursor = encode_cursor(task_id, Position(edge[4], edge[6])) if has_more and edge else None
        return Page([_record(r) for r in rows], next_cursor, has_more)
