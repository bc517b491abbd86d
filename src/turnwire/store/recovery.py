"""Closing what a dead process left streaming (``store.writers`` decides which process is dead).

Each such message still ``IN_PROGRESS`` becomes ``DONE`` with its content as last flushed, and its
task gets one ``{"type": "turnwire.interrupted", "message_ids": [...]}`` data message right after,
in the same transaction — so a reader can tell which messages were cut off, and the official
client reads them like any other message.
"""

from __future__ import annotations

from collections.abc import Collection

import orjson
import sqlalchemy as sa

from turnwire.conversations.planning import interrupted_content
from turnwire.store.clock import MS, new_id, now_us
from turnwire.store.schema import messages, tasks
from turnwire.store.sql import SqlStore

M = messages.c


async def recover_interrupted(
    store: SqlStore, *, older_than_us: int | None = None, writers: Collection[str] | None = None
) -> dict[str, list[str]]:
    """Mark ``IN_PROGRESS`` messages as interrupted; returns task id -> message ids.

    ``writers``: only messages owned by these writer ids (the dead ones: see
    ``store.writers.repair_dead_writers``, which the server runs). ``older_than_us``: only messages
    last written before this time (µs since the epoch). Neither: every open message, whoever
    streams it — only right when nothing else can be writing to the database.
    """
    cond = [M.streaming_status == "IN_PROGRESS"]
    if writers is not None:
        if not writers:
            return {}
        cond.append(M.writer_id.in_(list(writers)))
    if older_than_us is not None:
        cond.append(M.updated_at < older_than_us)
    async with store.db.read() as conn:
        rows = list(await conn.execute(sa.select(M.task_id, M.id).where(*cond).order_by(M.task_id, M.seq)))
    found: dict[str, list[str]] = {}
    for task_id, message_id in rows:
        found.setdefault(task_id, []).append(message_id)
    for task_id, ids in found.items():
        await _close_task(store, task_id, ids)
    return found


async def close_messages(store: SqlStore, task_id: str, ids: list[str]) -> None:
    """Mark these open messages of ``task_id`` interrupted (those still ``IN_PROGRESS``), with
    one marker after them: what ``recover_interrupted`` does for each task."""
    await _close_task(store, task_id, ids)


async def _close_task(store: SqlStore, task_id: str, ids: list[str]) -> None:
    async with store.db.write() as conn:
        now = now_us()
        # Only those still open: a live peer may have finished one since it was read.
        closed = await conn.execute(
            sa.update(messages)
            .where(M.id.in_(ids), M.streaming_status == "IN_PROGRESS")
            .values(streaming_status="DONE", updated_at=now)
            .returning(M.id)
        )
        done = [r[0] for r in closed]
        if not done:
            return
        row = (
            await conn.execute(
                sa.update(tasks)
                .where(tasks.c.id == task_id)
                .values(next_seq=tasks.c.next_seq + 1)
                .returning(tasks.c.next_seq, tasks.c.last_created_at)
            )
        ).first()
        if row is None:
            return
        seq, last = row[0] - 1, row[1]
        stamp = max(now, last + MS)
        await conn.execute(sa.update(tasks).where(tasks.c.id == task_id).values(last_created_at=stamp))
        await conn.execute(
            messages.insert().values(
                id=new_id(),
                task_id=task_id,
                seq=seq,
                content=orjson.dumps(interrupted_content(done)).decode(),
                streaming_status="DONE",
                created_at=stamp,
                updated_at=stamp,
                # After the task's last message: the marker is on the branch the messages were on.
                parent_id=sa.select(M.id).where(M.task_id == task_id, M.seq == seq - 1).scalar_subquery(),
            )
        )
