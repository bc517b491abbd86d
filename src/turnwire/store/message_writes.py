"""Message writes as plain SQL: the insert and batch update statements, each SQLite write as one
function of the writer thread (``sqlite_threads``), and the batch update's JSON answer."""

from __future__ import annotations

import functools
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from turnwire.store.base import LAST
from turnwire.store.clock import MS, new_ids, now_us, to_iso
from turnwire.store.errors import ConflictError, NotFoundError

_dumps = orjson.dumps

# The batch insert bypasses SQLAlchemy's parameter processing (the per-row cost of a 1,000-row
# batch); both drivers take positional tuples straight into their executemany.
COLUMNS = "id, task_id, seq, content, streaming_status, created_at, updated_at, writer_id, note, parent_id"
INSERT_SQL = {
    "sqlite": f"INSERT INTO messages ({COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    "postgresql": f"INSERT INTO messages ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
}
LAST_ID_SQL = {
    "sqlite": "SELECT id FROM messages WHERE task_id = ? ORDER BY seq DESC LIMIT 1",
    "postgresql": "SELECT id FROM messages WHERE task_id = $1 ORDER BY seq DESC LIMIT 1",
}


def note_texts(notes: Sequence[dict[str, Any] | None] | None, n: int) -> list[str | None]:
    """``create_messages``' notes as the JSON text of the ``note`` column (``None``: nothing)."""
    if notes is None:
        return [None] * n
    if len(notes) != n:
        raise ValueError(f"{len(notes)} notes for {n} contents")
    return [_dumps(note).decode() if note else None for note in notes]


def chained(ids: Sequence[str], first: str | None) -> list[str | None]:
    """Each new message's parent: ``first`` for the first, then the one before it."""
    return [first, *ids[:-1]]


UPDATE_CHUNK = 5_000  # 2 parameters a row: within SQLite's and asyncpg's 32,767


@functools.lru_cache(maxsize=64)
def update_sql(dialect: str, n: int) -> str:
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


def refusal(task_id: str, missed: list[str], owners: Mapping[str, str]) -> Exception:
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
ALLOCATE_SQLITE = (
    "UPDATE tasks SET next_seq = next_seq + ?, last_created_at = max(last_created_at + ?, ?) + ? "
    "WHERE id = ? AND status != 'DELETED' RETURNING next_seq, last_created_at",
    "UPDATE tasks SET next_seq = next_seq + ?, last_created_at = max(last_created_at, ?) "
    "WHERE id = ? AND status != 'DELETED' RETURNING next_seq, last_created_at",
)


def create_sqlite(
    conn: sqlite3.Connection,
    task_id: str,
    contents: Sequence[dict[str, Any]],
    texts: list[str],
    created_at: int | None,
    streaming_status: str | None,
    writer: str | None,
    notes: list[str | None],
    parent_id: str | None,
) -> list[dict[str, Any]]:
    """``create_messages`` as one transaction of the SQLite writer thread (``texts``, ``notes``:
    the contents and notes as JSON; ``parent_id`` as ``create_messages`` takes it)."""
    if parent_id == LAST:  # before this insert's sequence numbers are taken
        last = conn.execute(LAST_ID_SQL["sqlite"], (task_id,)).fetchone()
        parent_id = last[0] if last else None
    n = len(texts)
    span = (n - 1) * MS
    if created_at is None:
        found = conn.execute(ALLOCATE_SQLITE[0], (n, MS, now_us(), span, task_id)).fetchall()
    else:
        found = conn.execute(ALLOCATE_SQLITE[1], (n, created_at + span, task_id)).fetchall()
    if not found:
        raise NotFoundError(task_id)
    seq = found[0][0] - n
    base = created_at if created_at is not None else found[0][1] - span
    ids = new_ids(n)
    parents = chained(ids, parent_id)
    rows = [
        (mid, task_id, seq + i, text, streaming_status, base + i * MS, base + i * MS, writer, note, parent)
        for i, (mid, text, note, parent) in enumerate(zip(ids, texts, notes, parents, strict=True))
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


TASK_STATUS_OF = "SELECT status FROM tasks WHERE id = ? AND tenant = ?"


def update_sqlite(
    conn: sqlite3.Connection, task_id: str, ids: list[str], texts: list[str], tenant: str | None = None
) -> dict[str, Any]:
    """``update_messages``' writes as one transaction of the SQLite writer thread: by id, the row
    (id, status, created, updated) of each message updated; raises (so nothing is kept) if any
    id is missing or another task's, or if ``tenant`` is given and the task is not a live one of
    that tenant's."""
    if tenant is not None:
        row = conn.execute(TASK_STATUS_OF, (task_id, tenant)).fetchone()
        if row is None or row[0] == "DELETED":
            raise NotFoundError(task_id)
    found: dict[str, Any] = {}
    for start in range(0, len(ids), UPDATE_CHUNK):
        chunk = ids[start : start + UPDATE_CHUNK]
        params: list[Any] = [now_us()]
        for mid, text in zip(chunk, texts[start : start + UPDATE_CHUNK], strict=True):
            params += (mid, text)
        params.append(task_id)
        for row in conn.execute(update_sql("sqlite", len(chunk)), params).fetchall():
            found[row[0]] = row
    if len(found) != len(ids):
        missed = [mid for mid in ids if mid not in found]
        owners: dict[str, str] = {}
        for start in range(0, len(missed), UPDATE_CHUNK):
            chunk = missed[start : start + UPDATE_CHUNK]
            marks = ", ".join("?" * len(chunk))
            owners.update(conn.execute(f"SELECT id, task_id FROM messages WHERE id IN ({marks})", chunk))
        raise refusal(task_id, missed, owners)
    return found


STATUS_JSON = {None: "null", "IN_PROGRESS": '"IN_PROGRESS"', "DONE": '"DONE"'}


def records_json(task_id: str, ids: list[str], texts: list[str], found: Mapping[str, Any]) -> bytes:
    """The JSON array of ``update_messages``' records, byte for byte what ``orjson.dumps`` makes of
    them, written from the contents' JSON (``texts``, already made for the statement) instead of
    building 1,000 dicts and serialising every content a second time."""
    task = _dumps(task_id).decode()
    joined = "".join(ids)
    # Store ids are hex; anything else is quoted by orjson (escapes, non-ASCII).
    quoted = ids if joined.isascii() and joined.isalnum() else [_dumps(mid).decode()[1:-1] for mid in ids]
    status_json = STATUS_JSON
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
