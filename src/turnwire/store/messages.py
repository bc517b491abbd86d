"""Message queries of the SQL store (mixed into ``SqlStore``)."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

from turnwire.errors import InputError
from turnwire.formats.agentex import render_messages
from turnwire.model import Message
from turnwire.store.base import LAST, Idempotency, Page, StoredMessage
from turnwire.store.clock import MS, new_ids, now_us, to_iso
from turnwire.store.cursor import Position, decode_cursor, encode_cursor
from turnwire.store.engine import Database
from turnwire.store.errors import ConflictError, NotFoundError
from turnwire.store.filters import MessageFilter, filters_clause
from turnwire.store.message_writes import (
    INSERT_SQL,
    LAST_ID_SQL,
    UPDATE_CHUNK,
    chained,
    create_sqlite,
    note_texts,
    records_json,
    refusal,
    update_sql,
    update_sqlite,
)
from turnwire.store.schema import messages, tasks

_dumps = orjson.dumps
_loads = orjson.loads
M = messages.c
ORDER_COLUMNS = {"created_at": M.created_at, "updated_at": M.updated_at, "id": M.id}
_LIVE = tasks.c.status != "DELETED"

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
        notes: Sequence[dict[str, Any] | None] | None = None,
        parent_id: str | None = LAST,
    ) -> list[dict[str, Any]]:
        if not contents:
            await self.get_task(task_id)  # type: ignore[attr-defined]
            return []

        writer = self.writer_id if owned else None
        note_json = note_texts(notes, len(contents))
        if self.db.dialect == "sqlite":
            texts = [_dumps(c).decode() for c in contents]
            args = (task_id, contents, texts, created_at, streaming_status, writer, note_json, parent_id)
            if idempotency is None:
                return await self.db.sqlite_write(create_sqlite, *args)
            return await self._idempotent_sqlite("messages", idempotency, create_sqlite, *args)

        async def work(conn: AsyncConnection) -> list[dict[str, Any]]:
            n = len(contents)
            seq, base = await self._allocate(conn, task_id, n, created_at)
            first = parent_id
            if first == LAST:  # under the task row's lock, taken by ``_allocate``
                last = (
                    sa.select(M.id).where(M.task_id == task_id, M.seq < seq).order_by(M.seq.desc()).limit(1)
                )
                first = (await conn.execute(last)).scalar()
            ids = new_ids(n)
            rows, out = [], []
            for i, (mid, content, note, parent) in enumerate(
                zip(ids, contents, note_json, chained(ids, first), strict=True)
            ):
                ts = base + i * MS
                rows.append(
                    (
                        mid,
                        task_id,
                        seq + i,
                        _dumps(content).decode(),
                        streaming_status,
                        ts,
                        ts,
                        writer,
                        note,
                        parent,
                    )
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

    async def thread_messages(self, task_id: str) -> list[StoredMessage]:
        query = (
            sa.select(*_SELECT.selected_columns, M.note, M.parent_id)
            .where(M.task_id == task_id)
            .order_by(M.created_at.asc(), M.seq.asc())
        )
        async with self.db.read() as conn:
            rows = list(await conn.execute(query))
        return [StoredMessage(_record(r), _loads(r[7]) if r[7] else {}, r[8]) for r in rows]

    async def last_message_id(self, task_id: str) -> str | None:
        if self.db.dialect == "sqlite":
            row = self.db.sqlite_read_now(_last_id_sqlite, task_id)
            return row[0] if row else None
        rows = await self.db.pg_fetch(LAST_ID_SQL["postgresql"], task_id)
        return rows[0][0] if rows else None

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
            return await self.db.sqlite_write(update_sqlite, task_id, ids, texts, tenant)
        found: dict[str, Any] = {}
        async with self.db.write() as conn:
            if tenant is not None:
                query = sa.select(tasks.c.status).where(tasks.c.id == task_id, tasks.c.tenant == tenant)
                status = (await conn.execute(query)).scalar()
                if status is None or status == "DELETED":
                    raise NotFoundError(task_id)
            # Apply first, in one statement per chunk; a row count short of the batch means some id
            # is missing or another task's: raising rolls everything back, then says which.
            for start in range(0, len(ids), UPDATE_CHUNK):
                chunk = ids[start : start + UPDATE_CHUNK]
                params: list[Any] = [now_us()]
                for mid, text in zip(chunk, texts[start : start + UPDATE_CHUNK], strict=True):
                    params += (mid, text)
                params.append(task_id)
                result = await conn.exec_driver_sql(update_sql(dialect, len(chunk)), tuple(params))
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
        return records_json(task_id, ids, texts, await self._apply_updates(task_id, ids, texts, tenant))

    async def _refuse_update(self, conn: AsyncConnection, task_id: str, missed: list[str]) -> None:
        """Raise for ids the batch update did not reach: ``NotFoundError`` for the first that does
        not exist, else ``ConflictError`` naming those of another task."""
        owners = dict(list(await conn.execute(sa.select(M.id, M.task_id).where(M.id.in_(missed)))))
        raise refusal(task_id, missed, owners)

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

    async def update_notes(self, task_id: str, notes: Mapping[str, dict[str, Any]]) -> None:
        if not notes:
            return
        stmt = (
            sa.update(messages)
            .where(M.id == sa.bindparam("mid"), M.task_id == task_id)
            .values(note=sa.bindparam("n"))
        )
        rows = [{"mid": mid, "n": _dumps(note).decode()} for mid, note in notes.items()]
        async with self.db.write() as conn:
            await conn.execute(stmt, rows)

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


_update_sqlite = update_sqlite  # the name bench/batch_update_http.py imports


def _last_id_sqlite(conn: sqlite3.Connection, task_id: str) -> Any:
    return conn.execute(LAST_ID_SQL["sqlite"], (task_id,)).fetchone()
