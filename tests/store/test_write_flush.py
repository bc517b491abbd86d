"""``Store.write_flush`` on both databases (one transaction on SQLite's writer thread, one statement
on PostgreSQL): rows in order with the next sequence numbers, open ones owned by the writer lease,
``updated_at`` never moving back, and nothing written for a task that is gone."""

from __future__ import annotations

import asyncio

import pytest

from store_databases import execute
from turnwire.store import NewRow, NotFoundError, RowChange, SqlStore
from turnwire.store.clock import new_id, now_us, to_iso

pytestmark = pytest.mark.anyio


async def test_new_rows_are_numbered_in_order_and_open_ones_owned(store: SqlStore, db_url: str) -> None:
    task = (await store.create_task(name="f"))["id"]
    store.writer_id = "w1"
    now = now_us()
    ids = [new_id() for _ in range(3)]
    statuses = ["DONE", "IN_PROGRESS", None]
    await store.write_flush(
        task,
        [
            NewRow(i, f'{{"n":{n}}}', s, now + n, now + n)
            for n, (i, s) in enumerate(zip(ids, statuses, strict=True))
        ],
        [],
    )
    more = new_id()
    await store.write_flush(task, [NewRow(more, '{"n":3}', "DONE", now + 3, now + 3)], [])
    (rows,) = await execute(
        db_url,
        f"SELECT id, seq, streaming_status, writer_id FROM messages WHERE task_id = '{task}' ORDER BY seq",
    )
    assert [tuple(r) for r in rows] == [
        (ids[0], 0, "DONE", None),
        (ids[1], 1, "IN_PROGRESS", "w1"),
        (ids[2], 2, None, None),
        (more, 3, "DONE", None),
    ]
    assert await store.message_clock(task) == now + 3


async def test_changes_apply_and_updated_at_never_moves_back(store: SqlStore) -> None:
    task = (await store.create_task(name="g"))["id"]
    now = now_us()
    mid = new_id()
    await store.write_flush(
        task, [NewRow(mid, '{"type":"text","content":"a"}', "IN_PROGRESS", now, now + 500)], []
    )
    other = new_id()
    # One flush with a new row and a change: the change asks for an older stamp than stored.
    await store.write_flush(
        task,
        [NewRow(other, '{"type":"text","content":"b"}', "DONE", now + 1, now + 1)],
        [RowChange(mid, '{"type":"text","content":"ab"}', "DONE", now + 100)],
    )
    got = await store.get_message(mid)
    assert got["content"] == {"type": "text", "content": "ab"} and got["streaming_status"] == "DONE"
    first = await store.list_messages(task, descending=False)
    assert [m["id"] for m in first] == [mid, other]
    # updated_at advanced past what was stored (now + 500), not back to now + 100.
    assert got["updated_at"] == to_iso(now + 501)


async def test_a_flush_for_a_deleted_task_writes_nothing(store: SqlStore) -> None:
    task = (await store.create_task(name="h"))["id"]
    now = now_us()
    mid = new_id()
    await store.write_flush(task, [NewRow(mid, '{"type":"text","content":"a"}', "IN_PROGRESS", now, now)], [])
    await store.delete_task(task)
    with pytest.raises(NotFoundError):
        await store.write_flush(
            task,
            [NewRow(new_id(), '{"type":"text","content":"b"}', "DONE", now + 1, now + 1)],
            [RowChange(mid, '{"type":"text","content":"changed"}', "DONE", now + 2)],
        )
    kept = await store.get_message(mid)
    assert kept["content"] == {"type": "text", "content": "a"} and kept["streaming_status"] == "IN_PROGRESS"
    assert len(await store.list_messages(task)) == 1


async def test_flushes_of_many_tasks_at_once_each_keep_their_outcome(store: SqlStore, db_url: str) -> None:
    # Concurrent flushes are grouped (SQLite: one transaction; PostgreSQL: one statement); a task
    # that is gone fails only its own flush, and two flushes of one task keep their order.
    tasks = [(await store.create_task(name=f"many-{i}"))["id"] for i in range(6)]
    gone = tasks[5]
    await store.delete_task(gone)
    now = now_us()
    first = {t: new_id() for t in tasks}
    await asyncio.gather(
        *(store.write_flush(t, [NewRow(first[t], '{"n":0}', "IN_PROGRESS", now, now)], []) for t in tasks[:5])
    )
    flushes = []
    for t in tasks:
        flushes.append(
            store.write_flush(
                t,
                [NewRow(new_id(), '{"n":1}', "DONE", now + 1, now + 1)],
                [RowChange(first[t], '{"n":"0 done"}', "DONE", now + 2)],
            )
        )
    extra = new_id()
    flushes.append(store.write_flush(tasks[0], [NewRow(extra, '{"n":2}', "DONE", now + 3, now + 3)], []))
    seen: list[str] = []
    store.db.trace = seen.append
    out = await asyncio.gather(*flushes, return_exceptions=True)
    if store.dialect == "postgresql":  # the six tasks in one statement, then the extra flush alone
        assert [s.split()[0] for s in seen] == ["WITH", "WITH"] and "unnest($1::text[]" in seen[0]
    assert out[:5] == [None] * 5 and out[6] is None
    assert isinstance(out[5], NotFoundError)
    (rows,) = await execute(
        db_url, "SELECT task_id, seq, content, streaming_status FROM messages ORDER BY task_id, seq"
    )
    by_task: dict[str, list[tuple]] = {}
    for task_id, seq, content, status in rows:
        by_task.setdefault(task_id, []).append((seq, content, status))
    assert gone not in by_task
    for t in tasks[1:5]:
        assert by_task[t] == [(0, '{"n":"0 done"}', "DONE"), (1, '{"n":1}', "DONE")]
    assert by_task[tasks[0]] == [
        (0, '{"n":"0 done"}', "DONE"),
        (1, '{"n":1}', "DONE"),
        (2, '{"n":2}', "DONE"),
    ]
