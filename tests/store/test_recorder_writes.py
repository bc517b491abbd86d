"""How many writes a recorded turn costs, counted on the real database's connection: a batch turn
is one transaction with one insert; a streamed turn one transaction per flush (at most one per
``flush_interval``), whatever the number of messages and deltas. And what the frames carry: the
TaskMessage as it is stored, before and after its row exists."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest
import sqlalchemy as sa
from sqlalchemy import event

from turnwire.conversations.pubsub import LocalPubSub
from turnwire.conversations.recording import TurnRecorder
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart, Thought
from turnwire.store import SqlStore

pytestmark = pytest.mark.anyio

USER = {
    "type": "text",
    "author": "user",
    "style": "static",
    "format": "plain",
    "content": "go",
    "attachments": None,
}


async def _turn(messages: int, deltas: int) -> AsyncIterator[Event]:
    yield Thought("planning")
    for m in range(messages):
        yield MessageStart(id=f"m{m}")
        for d in range(deltas):
            yield MessageDelta(id=f"m{m}", delta=f"{d} ")
        yield MessageEnd(id=f"m{m}")


class Writes:
    """Committed transactions and message statements of the store's writes. PostgreSQL: seen on the
    SQLAlchemy writer engine (it is the reader too: reads roll back, so only commits count), and
    the statements the store sends straight to asyncpg, each its own transaction (a recorder flush
    is one statement: its inserts and updates of messages are counted in it, in order).
    SQLite: traced on the write connections (the writer thread's and the event loop's), which run
    every write of the recorder; their trace shows an ``executemany`` row by row, so a run of the
    same statement on the same table is one statement."""

    def __init__(self, store: SqlStore) -> None:
        self.transactions = 0
        self.statements: list[str] = []
        self._last = ""
        if store.dialect == "sqlite":
            assert store.db.threads is not None
            store.db.threads.trace_writes(self._traced)
            return
        engine = store.db.writer.sync_engine
        event.listen(engine, "commit", self._commit)
        event.listen(engine, "before_cursor_execute", self._statement)
        store.db.trace = self._direct

    def _direct(self, sql: str) -> None:
        if sql.startswith("SELECT"):
            return
        self.transactions += 1
        self.statements += [m.split()[0] for m in re.findall(r"(?:INSERT INTO|UPDATE) messages", sql)]

    @classmethod
    async def on(cls, store: SqlStore) -> Writes:
        return cls(store)

    def _traced(self, sql: str) -> None:
        words = sql.split()
        if words[0].upper() == "COMMIT":
            self.transactions += 1
        kind = " ".join(words[:3]).upper()
        if kind != self._last:
            self._statement(None, None, sql)
        self._last = kind

    def _commit(self, conn: Any) -> None:
        self.transactions += 1

    def _statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "messages" in statement and not statement.lstrip().upper().startswith(("BEGIN", "SELECT")):
            self.statements.append(statement.split()[0].upper())


async def _stored(store: SqlStore, task_id: str) -> list[dict[str, Any]]:
    return await store.list_messages(task_id, limit=1000, descending=False)


async def test_a_batch_turn_is_one_transaction_with_one_insert(store: SqlStore) -> None:
    task = (await store.create_task(name="batch"))["id"]
    writes = await Writes.on(store)
    recorder = TurnRecorder(store, task, inbound=[USER], batch=True)
    events = [e async for e in recorder.record(_turn(20, 5))]
    assert len(events) == 1 + 20 * 7
    assert writes.transactions == 1 and writes.statements == ["INSERT"]
    stored = await _stored(store, task)
    assert [m["content"]["type"] for m in stored] == ["text", "reasoning"] + ["text"] * 20
    assert stored[2]["content"]["content"] == "0 1 2 3 4 "
    assert all(m["streaming_status"] == "DONE" for m in stored)
    assert recorder.finals == stored[1:]


async def test_a_batch_turn_cut_short_still_stores_what_it_received(store: SqlStore) -> None:
    task = (await store.create_task(name="cut"))["id"]
    recorder = TurnRecorder(store, task, inbound=[USER], batch=True)
    stream = recorder.record(_turn(3, 4))
    seen = [await stream.__anext__() for _ in range(5)]  # thought, start, three deltas
    assert len(seen) == 5
    await stream.aclose()  # the client went away
    stored = await _stored(store, task)
    assert [m["content"].get("content") for m in stored[::2]] == ["go", "0 1 2 "]
    assert all(m["streaming_status"] == "DONE" for m in stored)


async def test_a_streamed_turn_shorter_than_the_flush_interval_is_one_insert(store: SqlStore) -> None:
    # Was one insert per message start plus one update per end (22 transactions here): every
    # message now ends before the first flush, so it is created once, already DONE.
    task = (await store.create_task(name="stream"))["id"]
    writes = await Writes.on(store)
    recorder = TurnRecorder(store, task, inbound=[USER], flush_interval=60)
    [e async for e in recorder.record(_turn(10, 50))]
    assert writes.transactions == 1 and writes.statements == ["INSERT"]
    stored = await _stored(store, task)
    assert [m["content"]["type"] for m in stored] == ["text", "reasoning"] + ["text"] * 10
    assert stored[0]["content"]["content"] == "go"
    assert stored[-1]["content"]["content"] == "".join(f"{d} " for d in range(50))
    assert all(m["streaming_status"] == "DONE" for m in stored)
    assert recorder.finals == stored[1:]


async def test_a_long_streamed_turn_writes_one_transaction_per_flush(store: SqlStore) -> None:
    task = (await store.create_task(name="long"))["id"]
    writes = await Writes.on(store)
    recorder = TurnRecorder(store, task, inbound=[USER], flush_interval=0.05)
    [e async for e in recorder.record(_paced(messages=4, deltas=5, pause=0.02))]
    flushes = writes.transactions
    # About 0.4 s of turn: a handful of flushes plus the last one, far fewer than 1 + 4 * 2 writes
    # per message start and end, let alone one per delta (20).
    assert 2 <= flushes <= 0.4 / 0.05 + 3
    assert writes.statements.count("INSERT") <= flushes and writes.statements.count("UPDATE") <= flushes
    stored = await _stored(store, task)
    said = "".join(f"{d} " for d in range(5))
    assert [m["content"].get("content") for m in stored] == ["go", ["planning"]] + [said] * 4
    assert all(m["streaming_status"] == "DONE" for m in stored)


async def test_an_open_message_is_in_the_store_within_a_flush_interval_without_new_frames(
    store: SqlStore,
) -> None:
    task = (await store.create_task(name="quiet"))["id"]
    resume = anyio.Event()

    async def stalls() -> AsyncIterator[Event]:
        yield MessageStart(id="m")
        yield MessageDelta(id="m", delta="half")
        await resume.wait()  # e.g. a slow tool: no frame for a long time
        yield MessageDelta(id="m", delta=" done")
        yield MessageEnd(id="m")

    recorder = TurnRecorder(store, task, inbound=[USER], flush_interval=0.05)
    stream = recorder.record(stalls())
    async with anyio.create_task_group() as tg:

        async def drain() -> None:
            async for _ in stream:
                pass

        tg.start_soon(drain)
        with anyio.fail_after(5):
            while len(stored := await _stored(store, task)) < 2:
                await anyio.sleep(0.01)
        assert stored[1]["content"]["content"] == "half" and stored[1]["streaming_status"] == "IN_PROGRESS"
        resume.set()
    stored = await _stored(store, task)
    assert stored[1]["content"]["content"] == "half done" and stored[1]["streaming_status"] == "DONE"


async def test_frames_carry_the_task_message_as_stored_before_and_after_its_row_exists(
    store: SqlStore,
) -> None:
    task = (await store.create_task(name="parents"))["id"]
    pubsub = LocalPubSub()
    published: list[dict[str, Any]] = []
    recorder = TurnRecorder(store, task, pubsub, inbound=[USER], flush_interval=60)
    sub = pubsub.subscribe(task)
    frames = [f async for _, fs in recorder.record_frames(_turn(3, 2)) for f in fs]
    with anyio.fail_after(5):
        while len(published) < len(frames):
            published.append(await sub.__anext__())
    assert published == frames
    stored = {m["id"]: m for m in await _stored(store, task)}
    for frame in frames:
        parent = frame["parent_task_message"]
        row = stored[parent["id"]]
        assert {k: parent[k] for k in ("task_id", "created_at")} == {
            k: row[k] for k in ("task_id", "created_at")
        }
        if frame["type"] in ("done", "full"):
            assert parent == row  # the final TaskMessage, exactly
        else:
            assert parent["streaming_status"] == "IN_PROGRESS"


async def test_a_turn_sorts_after_earlier_messages_stamped_ahead_of_the_clock(store: SqlStore) -> None:
    task = (await store.create_task(name="clock"))["id"]
    # A batch of 50 is stamped base + i ms: its last message sits ~49 ms in the future.
    before = await store.create_messages(task, [USER] * 50, streaming_status="DONE")
    recorder = TurnRecorder(store, task, inbound=[USER], flush_interval=60)
    [e async for e in recorder.record(_turn(2, 1))]
    stored = await _stored(store, task)
    assert [m["id"] for m in stored[:50]] == [m["id"] for m in before]
    stamps = [m["created_at"] for m in stored]
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


@contextlib.asynccontextmanager
async def _writes_blocked(store: SqlStore, task_id: str) -> AsyncIterator[None]:
    """Every write of the recorder on ``task_id`` waits until the block ends."""
    if store.dialect == "sqlite":
        async with store.db.write():  # SQLite has one writer: hold its turn
            yield
        return
    # PostgreSQL: a write that creates messages locks the task row first; hold that lock.
    async with store.db.writer.connect() as conn, conn.begin():
        await conn.execute(sa.text("SELECT 1 FROM tasks WHERE id = :id FOR UPDATE"), {"id": task_id})
        yield


async def test_a_slow_store_never_delays_the_stream(store: SqlStore) -> None:
    task = (await store.create_task(name="slow"))["id"]
    recorder = TurnRecorder(store, task, inbound=[USER], flush_interval=0.01)
    async with _writes_blocked(store, task):
        stream = recorder.record(_paced(messages=5, deltas=3, pause=0.01))
        with anyio.fail_after(2):
            seen = [await stream.__anext__() for _ in range(1 + 5 * 5)]
        assert len(seen) == 26  # thought, then start, 3 deltas, end per message
        assert await _stored(store, task) == []
    with anyio.fail_after(5):
        rest = [e async for e in stream]
    assert rest == []
    stored = await _stored(store, task)
    assert len(stored) == 1 + 1 + 5 and all(m["streaming_status"] == "DONE" for m in stored)


async def test_a_streamed_flush_is_one_statement_for_every_open_message(store: SqlStore) -> None:
    task = (await store.create_task(name="flush"))["id"]
    recorder = TurnRecorder(store, task, flush_interval=60)
    stream = recorder.record(_interleaved())
    async for _ in stream:
        if len(recorder._entries) == 2 and all(e.changes > 1 for e in recorder._entries.values()):
            break
    writes = await Writes.on(store)
    await recorder.flush()
    # The two messages do not exist yet: one transaction creates both.
    assert writes.transactions == 1 and writes.statements == ["INSERT"]
    stored = {m["content"].get("content"): m["streaming_status"] for m in await _stored(store, task)}
    assert stored == {"a": "IN_PROGRESS", "b": "IN_PROGRESS"}
    await stream.__anext__()  # x ends
    await stream.__anext__()  # y ends
    writes = await Writes.on(store)
    await recorder.flush()
    assert writes.transactions == 1 and writes.statements == ["UPDATE"]  # one executemany
    await stream.aclose()
    assert all(m["streaming_status"] == "DONE" for m in await _stored(store, task))


async def _paced(messages: int, deltas: int, pause: float) -> AsyncIterator[Event]:
    yield Thought("planning")
    for m in range(messages):
        yield MessageStart(id=f"m{m}")
        for d in range(deltas):
            await anyio.sleep(pause)
            yield MessageDelta(id=f"m{m}", delta=f"{d} ")
        yield MessageEnd(id=f"m{m}")


async def _interleaved() -> AsyncIterator[Event]:
    yield MessageStart(id="x")
    yield MessageStart(id="y")
    yield MessageDelta(id="x", delta="a")
    yield MessageDelta(id="y", delta="b")
    yield MessageEnd(id="x")
    yield MessageEnd(id="y")


async def test_every_delta_of_a_slow_message_reaches_the_store_while_it_streams(store: SqlStore) -> None:
    """Each delta comes after the writer has gone idle (everything written): the delta itself must
    schedule the next flush, or the store would hold the first words until the message ends."""
    task = (await store.create_task(name="slow-deltas"))["id"]
    step = anyio.Event()
    words = ["one ", "two ", "three ", "four "]

    async def slow() -> AsyncIterator[Event]:
        nonlocal step
        yield MessageStart(id="m")
        for w in words:
            yield MessageDelta(id="m", delta=w)
            await step.wait()
            step = anyio.Event()
        yield MessageEnd(id="m")

    recorder = TurnRecorder(store, task, inbound=[USER], flush_interval=0.02)
    stream = recorder.record(slow())
    async with anyio.create_task_group() as tg:

        async def drain() -> None:
            async for _ in stream:
                pass

        tg.start_soon(drain)
        for n in range(1, len(words) + 1):
            want = "".join(words[:n])
            with anyio.fail_after(5):
                while True:
                    stored = await _stored(store, task)
                    if len(stored) == 2 and stored[1]["content"]["content"] == want:
                        break
                    await anyio.sleep(0.01)
            assert stored[1]["streaming_status"] == "IN_PROGRESS"
            step.set()
    stored = await _stored(store, task)
    assert stored[1]["content"]["content"] == "".join(words) and stored[1]["streaming_status"] == "DONE"
