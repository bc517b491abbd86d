"""How many writes a recorded turn costs, counted on the real database's connection: a batch turn
is one transaction with one insert; a streamed turn one insert per message start and one update per
end, whatever the number of deltas."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import event

from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart, Thought
from turnwire.recorder import TurnRecorder
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
    """Write transactions and message statements seen on the store's writer engine."""

    def __init__(self, store: SqlStore) -> None:
        self.transactions = 0
        self.statements: list[str] = []
        engine = store.db.writer.sync_engine
        event.listen(engine, "begin", self._begin)
        event.listen(engine, "before_cursor_execute", self._statement)

    def _begin(self, conn: Any) -> None:
        self.transactions += 1

    def _statement(self, conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if "messages" in statement and not statement.lstrip().upper().startswith(("BEGIN", "SELECT")):
            self.statements.append(statement.split()[0].upper())


async def _stored(store: SqlStore, task_id: str) -> list[dict[str, Any]]:
    return await store.list_messages(task_id, limit=1000, descending=False)


async def test_a_batch_turn_is_one_transaction_with_one_insert(store: SqlStore) -> None:
    task = (await store.create_task(name="batch"))["id"]
    writes = Writes(store)
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


async def test_a_streamed_turn_writes_per_message_not_per_delta(store: SqlStore) -> None:
    task = (await store.create_task(name="stream"))["id"]
    writes = Writes(store)
    # No time-based flush here: the interval is longer than the turn.
    recorder = TurnRecorder(store, task, inbound=[USER], flush_interval=60)
    [e async for e in recorder.record(_turn(10, 50))]
    # inbound; the thought; per message: its insert at the start and its DONE at the end.
    assert writes.transactions == 1 + 1 + 10 * 2
    assert writes.statements.count("INSERT") == 12 and writes.statements.count("UPDATE") == 10
    stored = await _stored(store, task)
    assert stored[-1]["content"]["content"] == "".join(f"{d} " for d in range(50))
    assert all(m["streaming_status"] == "DONE" for m in stored)


async def test_a_streamed_flush_is_one_statement_for_every_open_message(store: SqlStore) -> None:
    task = (await store.create_task(name="flush"))["id"]
    recorder = TurnRecorder(store, task, flush_interval=60)
    stream = recorder.record(_interleaved())
    async for _ in stream:
        if len(recorder._open) == 2 and all(e.dirty for e in recorder._open.values()):
            break
    writes = Writes(store)
    await recorder.flush()
    assert writes.transactions == 1 and writes.statements == ["UPDATE"]
    stored = {m["content"].get("content"): m["streaming_status"] for m in await _stored(store, task)}
    assert stored == {"a": "IN_PROGRESS", "b": "IN_PROGRESS"}
    await stream.aclose()
    assert all(m["streaming_status"] == "DONE" for m in await _stored(store, task))


async def _interleaved() -> AsyncIterator[Event]:
    yield MessageStart(id="x")
    yield MessageStart(id="y")
    yield MessageDelta(id="x", delta="a")
    yield MessageDelta(id="y", delta="b")
    yield MessageEnd(id="x")
    yield MessageEnd(id="y")
