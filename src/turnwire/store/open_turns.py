"""Turns a server process has open on a task, so a turn cut *between* two messages is repaired too.

``store.recovery`` closes the messages a dead writer left ``IN_PROGRESS``; a turn killed while no
message streamed (after a tool call, between two model steps) left none, and looked complete. So a
streamed turn that lives past its first flush interval registers an ``open_turns`` row under this
process's writer id (one small write), and removes it once its end is stored. When a writer dies,
``repair_open_turns`` gives each of its open turns that had no open message an interruption marker
(``message_ids`` empty: nothing was cut mid-message) and forgets the rows. A turn shorter than one
flush interval writes no row: its whole content goes in one flush at its end, so a kill before
then loses it within the documented flush bound anyway.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Collection
from typing import Any, Final

import orjson
import sqlalchemy as sa

from turnwire.conversations.planning import interrupted_content
from turnwire.store.clock import MS, new_id, now_us
from turnwire.store.recovery import close_messages
from turnwire.store.schema import messages, open_turns, tasks
from turnwire.store.tenant_view import sql_store_of

BETWEEN_MESSAGES: Final = "the server stopped during this turn, between two of its messages"
T = open_turns.c
M = messages.c

_OPEN_SQLITE: Final = "INSERT INTO open_turns (id, task_id, writer_id, started_at) VALUES (?, ?, ?, ?)"
_CLOSE_SQLITE: Final = "DELETE FROM open_turns WHERE id = ?"
_OPEN_PG: Final = "INSERT INTO open_turns (id, task_id, writer_id, started_at) VALUES ($1, $2, $3, $4)"
_CLOSE_PG: Final = "DELETE FROM open_turns WHERE id = $1"


_held: dict[str, int] = {}
"""Tasks with a turn being recorded in this process (count of recorders), for ``repair_orphans``."""


def hold(task_id: str) -> None:
    """A recorder of this process writes on ``task_id`` until ``release``."""
    _held[task_id] = _held.get(task_id, 0) + 1


def release(task_id: str) -> None:
    left = _held.get(task_id, 0) - 1
    if left > 0:
        _held[task_id] = left
    else:
        _held.pop(task_id, None)


async def repair_orphans(store: Any, me: str) -> dict[str, list[str]]:
    """Mark interrupted what this live process (writer ``me``) left open with no recorder left to
    finish it: a turn whose closing write failed (the store was down when it ended). Its peers
    never touch a live writer's rows, so without this they would stay ``IN_PROGRESS`` for as
    long as the process lives. Returns task id -> message ids repaired."""
    async with store.db.read() as conn:
        messages_open = list(
            await conn.execute(
                sa.select(M.task_id, M.id)
                .where(M.streaming_status == "IN_PROGRESS", M.writer_id == me)
                .order_by(M.task_id, M.seq)
            )
        )
        turns_open = list(await conn.execute(sa.select(T.task_id).where(T.writer_id == me).distinct()))
    found: dict[str, list[str]] = {}
    for task_id, message_id in messages_open:
        if task_id not in _held:
            found.setdefault(task_id, []).append(message_id)
    for task_id, ids in found.items():
        await close_messages(store, task_id, ids)
    orphans = [task_id for (task_id,) in turns_open if task_id not in _held]
    for task_id in orphans:
        if task_id in found:  # marked just now: only its open-turn row goes
            async with store.db.write() as conn:
                await conn.execute(sa.delete(open_turns).where(T.task_id == task_id, T.writer_id == me))
        elif await _mark_interrupted(store, task_id, [me]) and task_id not in _held:
            found[task_id] = []
    return found


async def open_turn(store: Any, task_id: str) -> str | None:
    """Register a turn open on ``task_id`` under the store's writer lease; its mark id, or ``None``
    when nothing would repair it (no lease: a library caller's store)."""
    sql = sql_store_of(store)
    writer = getattr(sql, "writer_id", None)
    if sql is None or writer is None:
        return None
    mark, now = new_id(), now_us()
    db = sql.db
    if db.dialect == "sqlite":
        await db.sqlite_write(_run, _OPEN_SQLITE, (mark, task_id, writer, now), quick=True)
    else:
        await db.pg_fetch(_OPEN_PG, mark, task_id, writer, now)
    return mark


async def close_turn(store: Any, mark: str) -> None:
    """The turn's end is stored: forget its mark."""
    db = sql_store_of(store).db
    if db.dialect == "sqlite":
        await db.sqlite_write(_run, _CLOSE_SQLITE, (mark,), quick=True)
    else:
        await db.pg_fetch(_CLOSE_PG, mark)


def _run(conn: sqlite3.Connection, sql: str, args: tuple[Any, ...]) -> None:
    conn.execute(sql, args)


def open_turn_writers() -> sa.Select[Any]:
    """Writer ids holding open turns (for ``writers.dead_writers``)."""
    return sa.select(T.writer_id).distinct()


async def repair_open_turns(
    store: Any, writers: Collection[str], *, marked: Collection[str] = ()
) -> dict[str, list[str]]:
    """Give each open turn of the dead ``writers`` an interruption marker, unless its task already
    got one now (``marked``: the tasks ``recover_interrupted`` repaired); forget their rows.
    Returns task id -> [] for the tasks marked here."""
    if not writers:
        return {}
    async with store.db.read() as conn:
        rows = list(await conn.execute(sa.select(T.task_id).where(T.writer_id.in_(list(writers))).distinct()))
    found: dict[str, list[str]] = {}
    for (task_id,) in rows:
        if task_id in marked:
            continue
        if await _mark_interrupted(store, task_id, writers):
            found[task_id] = []
    async with store.db.write() as conn:
        await conn.execute(sa.delete(open_turns).where(T.writer_id.in_(list(writers))))
    return found


async def _mark_interrupted(store: Any, task_id: str, writers: Collection[str]) -> bool:
    async with store.db.write() as conn:
        # Only if the row is still there: a peer repairing the same writer may have done it.
        gone = await conn.execute(
            sa.delete(open_turns).where(T.task_id == task_id, T.writer_id.in_(list(writers))).returning(T.id)
        )
        if not list(gone):
            return False
        row = (
            await conn.execute(
                sa.update(tasks)
                .where(tasks.c.id == task_id, tasks.c.status != "DELETED")
                .values(next_seq=tasks.c.next_seq + 1)
                .returning(tasks.c.next_seq, tasks.c.last_created_at)
            )
        ).first()
        if row is None:
            return False
        seq, last = row[0] - 1, row[1]
        stamp = max(now_us(), last + MS)
        await conn.execute(sa.update(tasks).where(tasks.c.id == task_id).values(last_created_at=stamp))
        content = interrupted_content([])
        content["data"]["reason"] = BETWEEN_MESSAGES
        await conn.execute(
            messages.insert().values(
                id=new_id(),
                task_id=task_id,
                seq=seq,
                content=orjson.dumps(content).decode(),
                streaming_status="DONE",
                created_at=stamp,
                updated_at=stamp,
                # After the task's last message: the marker is on the branch the turn was on.
                parent_id=sa.select(M.id).where(M.task_id == task_id, M.seq == seq - 1).scalar_subquery(),
            )
        )
    return True
