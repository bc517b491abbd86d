"""``SqlStore.session_task`` and ``open_conversation`` on SQLite and a real PostgreSQL: the session id
names a task by id or by name, the first turn creates it, and racing first turns share one task."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from turnwire.conversations.recording import TurnRecorder
from turnwire.conversations.stored import open_conversation, task_for_session
from turnwire.model import Event, Message, MessageDelta, MessageEnd, MessageStart, TextBlock
from turnwire.store import ConflictError, NotFoundError, SqlStore
from turnwire.store.clock import MS, now_us, parse_time

pytestmark = pytest.mark.anyio


def user(s: str) -> Message:
    return Message(role="user", content=[TextBlock(text=s)])


async def test_first_use_creates_the_task_and_later_uses_find_it(store: SqlStore) -> None:
    task, created, clock = await store.session_task("chat-1")
    assert created is True and clock == 0 == await store.message_clock(task["id"])
    assert task["name"] == "chat-1" and task["status"] == "RUNNING"
    # What the creation returns is the task as stored, field for field.
    assert task == await store.get_task(task["id"])
    again, created, _ = await store.session_task("chat-1")
    assert created is False and again == task
    # The clock read with the task is the one message_clock gives, after messages are stored.
    await store.create_messages(task["id"], [{"type": "text", "author": "user", "content": "hi"}])
    found = await store.session_task("chat-1")
    assert found.clock == await store.message_clock(task["id"]) > 0
    assert await task_for_session(store, "chat-1") == task


async def test_a_task_id_wins_over_a_task_of_that_name(store: SqlStore) -> None:
    by_id = await store.create_task(name="first")
    named = await store.create_task(name=by_id["id"])
    task, created, _ = await store.session_task(by_id["id"])
    assert created is False and task["id"] == by_id["id"]
    # Once the task with that id is deleted, the name finds the other one.
    await store.delete_task(by_id["id"])
    task, created, _ = await store.session_task(by_id["id"])
    assert created is False and task["id"] == named["id"]


async def test_a_deleted_task_of_that_name_is_a_conflict(store: SqlStore) -> None:
    gone = await store.create_task(name="gone")
    await store.delete_task(gone["id"])
    with pytest.raises(ConflictError, match="belongs to a deleted task"):
        await store.session_task("gone")
    # A deleted task's id (its name is another) is free to name a new session.
    task, created, _ = await store.session_task(gone["id"])
    assert created is True and task["id"] != gone["id"] and task["name"] == gone["id"]


async def test_racing_first_turns_share_one_task(store: SqlStore) -> None:
    results = await asyncio.gather(*(store.session_task("same") for _ in range(12)))
    assert len({found.task["id"] for found in results}) == 1
    assert sum(found.created for found in results) == 1
    assert len(await store.list_tasks()) == 1


async def test_prepare_session_plans_everything_on_a_new_task_and_only_the_new_after(store: SqlStore) -> None:
    first = await open_conversation(store, "s", [user("hi")])
    assert [m.content[0].text for m in first.history] == ["hi"]
    assert len(first.plan.contents()) == 1
    await first.commit(store)
    # The second turn re-sends the stored message: only the new one is planned.
    second = await open_conversation(store, "s", [user("hi"), user("again")])
    assert second.task_id == first.task_id
    planned = second.plan.contents()
    assert len(planned) == 1 and planned[0]["content"] == "again"


async def test_a_recorder_given_the_clock_stamps_after_it(store: SqlStore) -> None:
    task = (await store.create_task(name="clocked"))["id"]
    ahead = now_us() + 10_000_000  # ten seconds ahead: only a clock taken as given explains it

    async def turn() -> AsyncIterator[Event]:
        yield MessageStart(id="m")
        yield MessageDelta(id="m", delta="x")
        yield MessageEnd(id="m")

    recorder = TurnRecorder(store, task, clock=ahead, flush_interval=60)
    [e async for e in recorder.record(turn())]
    (stored,) = await store.list_messages(task)
    assert parse_time(stored["created_at"], ("created_at",)) == ahead + MS
    assert stored["content"]["content"] == "x"


async def test_a_burst_of_lookups_gives_each_session_what_one_lookup_would(store: SqlStore) -> None:
    # On PostgreSQL lookups arriving together go out as one statement: each must still get the
    # rules of a lookup alone (an id wins over a name, a deleted name is a conflict, one creation).
    by_id = await store.create_task(name="first")
    named = await store.create_task(name="named")
    gone = await store.create_task(name="gone")
    await store.delete_task(gone["id"])
    await store.create_task(name=by_id["id"])
    statements: list[str] = []
    store.db.trace = statements.append
    asks = [
        by_id["id"],
        "named",
        "gone",
        "new-a",
        "new-b",
        "new-a",
        gone["id"],
        *(f"s{i}" for i in range(30)),
    ]
    results = await asyncio.gather(*(store.session_task(ask) for ask in asks), return_exceptions=True)
    store.db.trace = None
    by_ask = dict(zip(asks, results, strict=False))
    assert by_ask[by_id["id"]].task["id"] == by_id["id"] and not by_ask[by_id["id"]].created
    assert by_ask["named"].task == named and not by_ask["named"].created
    assert isinstance(results[2], ConflictError)
    new_a = [r for a, r in zip(asks, results, strict=True) if a == "new-a"]
    assert new_a[0].task["id"] == new_a[1].task["id"] and [r.created for r in new_a] == [True, False]
    assert by_ask[gone["id"]].created and by_ask[gone["id"]].task["name"] == gone["id"]
    for ask, found in zip(asks[7:], results[7:], strict=True):
        assert found.created and found.task == await store.get_task(found.task["id"])
        assert found.task["name"] == ask and found.clock == 0
    assert len(await store.list_tasks(limit=100)) == 3 + 3 + 30  # live: deleted ones are not listed
    if store.db.dialect == "postgresql":
        # The lookups queued behind the first went out together; "new-a" again waited for its own.
        assert len(statements) <= 4, statements


async def test_a_turns_new_session_does_not_wait_for_the_writer_thread(store: SqlStore) -> None:
    # Under load the SQLite writer thread is always busy with other turns' flushes: a new session's
    # task must not wait for it before the turn's first frame. Its row is written behind what was
    # queued before and ahead of the turn's own writes; until then lookups here answer it.
    if store.db.dialect != "sqlite":
        pytest.skip("PostgreSQL finds or creates a session's task in one statement")
    threads = store.db.threads
    assert threads is not None
    pause = await threads.pause()  # the writer thread stands still, as if busy
    try:
        found = await asyncio.wait_for(store.session_task_soon("fresh"), 2)
        task_id = found.task["id"]
        assert found.created and found.clock == 0 and found.task["name"] == "fresh"
        again = await store.session_task_soon("fresh")
        assert again.task == found.task and not again.created
        assert await store.get_task(task_id) == found.task
        assert await store.message_clock(task_id) == 0
        with pytest.raises(NotFoundError):
            await store.get_task(task_id, tenant="other")
        written = asyncio.ensure_future(
            store.create_messages(task_id, [{"type": "text", "author": "user", "content": "hi"}])
        )
        await asyncio.sleep(0.05)
        assert not written.done()
    finally:
        pause.resume.set()
    (message,) = await written  # after the task's row, which it needs
    assert message["task_id"] == task_id
    assert store.pending_task(task_id) is None
    assert (await store.session_task("fresh")).task["id"] == task_id
    assert [t["id"] for t in await store.list_tasks()] == [task_id]
