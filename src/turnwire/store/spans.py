"""Agentex spans in the store (``spans``, step 10), per tenant, in Agentex's shape.

A span here is a dict with Agentex's fields (``id``, ``name``, ``trace_id``, ``parent_id``,
``task_id``, ``start_time``, ``end_time``, ``input``, ``output``, ``data``); times are ISO 8601
outside the store and microseconds inside, so they sort the same on every database whatever
offset a client wrote them with. ``put_spans`` writes a batch in one transaction (on SQLite
grouped with whatever else the writer thread has queued); the reads are plain SELECTs.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any, Final

import orjson
import sqlalchemy as sa
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError

from turnwire.store.clock import parse_time, to_iso
from turnwire.store.schema import spans

C = spans.c
FIELDS: Final = (
    "id",
    "name",
    "trace_id",
    "parent_id",
    "task_id",
    "start_time",
    "end_time",
    "input",
    "output",
    "data",
)
_JSON: Final = ("input", "output", "data")
_TIMES: Final = ("start_time", "end_time")
_COLUMNS: Final = ("tenant", "session_id", *FIELDS)
_UPSERT_SQLITE: Final = (
    f"INSERT INTO spans ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))}) "
    "ON CONFLICT (tenant, id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in _COLUMNS if c not in ("tenant", "id", "session_id"))
    # A client's update of a turn's span keeps the conversation it belongs to.
    + ", session_id = COALESCE(excluded.session_id, spans.session_id)"
)
ORDERABLE: Final = {"start_time": C.start_time, "end_time": C.end_time, "name": C.name}

StoredSpan = tuple[str, dict[str, Any], str | None]
"""(tenant, span, session id of a turn's span or ``None``)."""


def _row(tenant: str, span: dict[str, Any], session_id: str | None) -> dict[str, Any]:
    row: dict[str, Any] = {"tenant": tenant, "session_id": session_id}
    for key in FIELDS:
        value = span.get(key)
        if key in _TIMES and value is not None:
            value = value if isinstance(value, int) else parse_time(value, ("body", key))
        elif key in _JSON and value is not None:
            value = orjson.dumps(value, default=str).decode()
        row[key] = value
    return row


def _span(row: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key in FIELDS:
        value = getattr(row, key)
        if key in _TIMES:
            value = to_iso(value)
        elif key in _JSON and value is not None:
            value = orjson.loads(value)
        out[key] = value
    return out


def _upsert_sqlite(conn: sqlite3.Connection, rows: list[dict[str, Any]]) -> None:
    conn.executemany(_UPSERT_SQLITE, [tuple(r[c] for c in _COLUMNS) for r in rows])


async def put_spans(db: Any, batch: Sequence[StoredSpan]) -> None:
    """Write (or replace, by tenant and id) every span of ``batch`` in one transaction."""
    rows = [_row(*item) for item in batch]
    if not rows:
        return
    if db.dialect == "sqlite":
        # A turn's spans are a few rows: grouped with the turn's own writes on the loop's connection.
        await db.sqlite_write(_upsert_sqlite, rows, quick=len(rows) <= 16)
        return
    insert = postgresql.insert(spans)
    changed: dict[str, Any] = {c: insert.excluded[c] for c in _COLUMNS if c not in ("tenant", "id")}
    changed["session_id"] = sa.func.coalesce(insert.excluded.session_id, C.session_id)
    async with db.write() as conn:
        await conn.execute(insert.on_conflict_do_update(index_elements=["tenant", "id"], set_=changed), rows)


async def create_span(db: Any, tenant: str, span: dict[str, Any]) -> bool:
    """Store a new span; ``False`` if the tenant already has one with its id."""
    try:
        async with db.write() as conn:
            await conn.execute(spans.insert().values(**_row(tenant, span, None)))
    except IntegrityError:
        return False
    return True


async def get_span(db: Any, tenant: str, span_id: str) -> dict[str, Any] | None:
    async with db.read() as conn:
        found = (await conn.execute(sa.select(spans).where(C.tenant == tenant, C.id == span_id))).first()
    return None if found is None else _span(found)


async def find_spans(
    db: Any,
    tenant: str,
    *,
    task_id: str | None = None,
    trace_id: str | None = None,
    order_by: str = "start_time",
    descending: bool = False,
    limit: int = 50,
    offset: int = 0,
) -> list[dict[str, Any]]:
    """A page of the tenant's spans of a task and/or a trace. Spans without the ordering field come
    last ascending and first descending (as PostgreSQL sorts nulls, so Agentex does); ties by id."""
    query = sa.select(spans).where(C.tenant == tenant)
    if task_id is not None:
        query = query.where(C.task_id == task_id)
    if trace_id is not None:
        query = query.where(C.trace_id == trace_id)
    column = ORDERABLE[order_by]
    order = column.desc() if descending else column.asc()
    nulls = sa.case((column.is_(None), 1), else_=0)
    query = query.order_by(nulls.desc() if descending else nulls, order, C.id).limit(limit).offset(offset)
    async with db.read() as conn:
        return [_span(row) for row in await conn.execute(query)]


async def last_turn_span(db: Any, tenant: str, session_id: str) -> dict[str, Any] | None:
    """The latest stored turn span of a conversation (what a resumed turn links to)."""
    query = (
        sa.select(spans)
        .where(C.tenant == tenant, C.session_id == session_id)
        .order_by(C.start_time.desc())
        .limit(1)
    )
    async with db.read() as conn:
        found = (await conn.execute(query)).first()
    return None if found is None else _span(found)
