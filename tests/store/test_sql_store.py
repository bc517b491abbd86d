"""SqlStore on SQLite and a real PostgreSQL: ordering, atomicity, concurrency, idempotency."""

from __future__ import annotations

import asyncio
from datetime import datetime

import pytest

from store_databases import FAIL_ON_BOOM, execute
from turnwire.errors import InputError
from turnwire.model import Message, TextBlock, ToolCallBlock
from turnwire.store import (
    ConflictError,
    Idempotency,
    IdempotencyMismatchError,
    NotFoundError,
    SqlStore,
    parse_filters,
)
from turnwire.store.clock import MS, parse_time
from turnwire.store.schema import MIGRATIONS

pytestmark = pytest.mark.anyio


def text(s: str, author: str = "user") -> dict:
    return {
        "type": "text",
        "author": author,
        "style": "static",
        "format": "plain",
        "content": s,
        "attachments": None,
    }


async def seqs(url: str, task_id: str) -> list[int]:
    rows = (await execute(url, f"SELECT seq FROM messages WHERE task_id = '{task_id}' ORDER BY seq"))[0]
    return [r[0] for r in rows]


async def test_open_applies_each_migration_once(store: SqlStore, db_url: str) -> None:
    again = SqlStore(db_url)
    await again.open()
    await again.close()
    rows = (await execute(db_url, "SELECT version FROM schema_migrations"))[0]
    assert rows == [(version,) for version, _, _ in MIGRATIONS]


async def test_batch_gets_consecutive_sequence_and_millisecond_stagger(store: SqlStore, db_url: str) -> None:
    task = await store.create_task(name="t")
    base = "2025-01-01T10:00:00.123000+00:00"
    created = await store.create_messages(
        task["id"], [text(str(i)) for i in range(5)], created_at=parse_time(base, ())
    )
    stamps = [parse_time(m["created_at"], ()) for m in created]
    assert stamps == [parse_time(base, ()) + i * MS for i in range(5)]
    assert all(m["updated_at"] == m["created_at"] for m in created)
    assert all(datetime.fromisoformat(m["created_at"]).tzinfo is not None for m in created)
    assert await seqs(db_url, task["id"]) == [0, 1, 2, 3, 4]


async def test_server_time_never_goes_back_within_a_task(store: SqlStore) -> None:
    task = await store.create_task()
    first = await store.create_messages(task["id"], [text("a"), text("b")])
    second = await store.create_messages(task["id"], [text("c")])
    assert parse_time(second[0]["created_at"], ()) > parse_time(first[-1]["created_at"], ())


async def test_twenty_concurrent_batches_keep_a_gap_free_order(store: SqlStore, db_url: str) -> None:
    task = await store.create_task()
    batches = [[text(f"{b}:{i}") for i in range(25)] for b in range(20)]
    await asyncio.gather(*(store.create_messages(task["id"], batch) for batch in batches))
    assert await seqs(db_url, task["id"]) == list(range(500))
    listed = await store.list_messages(task["id"], limit=1000, descending=False)
    labels = [m["content"]["content"] for m in listed]
    assert len(set(labels)) == 500
    # Each batch stays contiguous and in input order; batches never interleave.
    for start in range(0, 500, 25):
        chunk = labels[start : start + 25]
        batch = chunk[0].split(":")[0]
        assert chunk == [f"{batch}:{i}" for i in range(25)]


async def test_database_failure_mid_batch_writes_nothing(store: SqlStore, db_url: str) -> None:
    backend = "postgres" if db_url.startswith("postgres") else "sqlite"
    await execute(db_url, *FAIL_ON_BOOM[backend])
    task = await store.create_task()
    await store.create_messages(task["id"], [text("kept")])
    with pytest.raises(Exception, match="injected failure"):
        await store.create_messages(task["id"], [text("a"), text("b"), text("BOOM"), text("c")])
    assert [m["content"]["content"] for m in await store.list_messages(task["id"])] == ["kept"]
    # The failed batch reserved no sequence numbers either.
    await store.create_messages(task["id"], [text("next")])
    assert await seqs(db_url, task["id"]) == [0, 1]


async def test_unknown_or_deleted_task_rejects_messages(store: SqlStore) -> None:
    with pytest.raises(NotFoundError, match=r"Item with id 'nope' does not exist\."):
        await store.create_messages("nope", [text("x")])
    task = await store.create_task()
    await store.delete_task(task["id"])
    with pytest.raises(NotFoundError):
        await store.create_messages(task["id"], [text("x")])
    with pytest.raises(NotFoundError):
        await store.get_task(task["id"])


async def test_idempotency_key_returns_first_result_and_stores_once(store: SqlStore) -> None:
    task = await store.create_task()
    key = Idempotency("k1", "f1")
    first = await store.create_messages(task["id"], [text("a")], idempotency=key)
    again = await store.create_messages(task["id"], [text("a")], idempotency=key)
    assert again == first
    assert len(await store.list_messages(task["id"])) == 1
    with pytest.raises(IdempotencyMismatchError):
        await store.create_messages(task["id"], [text("b")], idempotency=Idempotency("k1", "other"))


async def test_concurrent_requests_with_one_key_store_once(store: SqlStore) -> None:
    task = await store.create_task()
    key = Idempotency("same", "f")
    results = await asyncio.gather(
        *(store.create_messages(task["id"], [text("x")], idempotency=key) for _ in range(8)),
        return_exceptions=True,
    )
    ok = [r for r in results if not isinstance(r, BaseException)]
    assert ok and all(r == ok[0] for r in ok)
    assert all(isinstance(r, ConflictError) for r in results if isinstance(r, BaseException))
    assert len(await store.list_messages(task["id"])) == 1


async def test_batch_update_checks_everything_before_writing(store: SqlStore) -> None:
    a, b = await store.create_task(), await store.create_task()
    mine = await store.create_messages(a["id"], [text("1"), text("2")])
    theirs = await store.create_messages(b["id"], [text("3")])
    with pytest.raises(NotFoundError):
        await store.update_messages(a["id"], {mine[0]["id"]: text("new"), "missing": text("x")})
    with pytest.raises(ConflictError) as info:
        await store.update_messages(a["id"], {mine[0]["id"]: text("new"), theirs[0]["id"]: text("x")})
    assert info.value.data == {"message_ids": [theirs[0]["id"]]}
    assert (await store.get_message(mine[0]["id"]))["content"]["content"] == "1"
    done = await store.update_messages(a["id"], {mine[1]["id"]: text("B"), mine[0]["id"]: text("A")})
    assert [m["id"] for m in done] == [mine[1]["id"], mine[0]["id"]]


async def test_a_batch_update_past_one_statement_is_still_all_or_nothing(store: SqlStore) -> None:
    # 5,000 rows go in one UPDATE; 6,001 need two, and a bad id in the second undoes the first.
    a, b = await store.create_task(), await store.create_task()
    mine = await store.create_messages(a["id"], [text(str(i)) for i in range(6_000)], streaming_status="DONE")
    (theirs,) = await store.create_messages(b["id"], [text("b")])
    edits = {m["id"]: text(f"new {i}") for i, m in enumerate(mine)}
    with pytest.raises(ConflictError) as info:
        await store.update_messages(a["id"], {**edits, theirs["id"]: text("x")})
    assert info.value.data == {"message_ids": [theirs["id"]]}
    with pytest.raises(NotFoundError):
        await store.update_messages(a["id"], {**edits, theirs["id"]: text("x"), "missing": text("x")})
    listed = await store.list_messages(a["id"], limit=6_000, descending=False)
    assert [m["content"]["content"] for m in listed] == [str(i) for i in range(6_000)]
    assert (await store.get_message(theirs["id"]))["content"]["content"] == "b"

    done = await store.update_messages(a["id"], edits)
    listed = await store.list_messages(a["id"], limit=6_000, descending=False)
    assert done == listed  # the answer is what a read returns
    assert [m["content"]["content"] for m in listed] == [f"new {i}" for i in range(6_000)]
    assert all(m["streaming_status"] == "DONE" for m in done)
    assert [m["created_at"] for m in done] == [m["created_at"] for m in mine]
    assert all(
        parse_time(new["updated_at"], ()) > parse_time(old["updated_at"], ())
        for new, old in zip(done, mine, strict=True)
    )


async def test_update_keeps_status_when_not_given_and_advances_updated_at(store: SqlStore) -> None:
    task = await store.create_task()
    (msg,) = await store.create_messages(task["id"], [text("a")], streaming_status="IN_PROGRESS")
    updated = await store.update_message(msg["id"], task_id=task["id"], content=text("b"))
    assert updated["streaming_status"] == "IN_PROGRESS"
    assert updated["created_at"] == msg["created_at"]
    assert parse_time(updated["updated_at"], ()) > parse_time(msg["updated_at"], ())
    other = await store.create_task()
    with pytest.raises(ConflictError):
        await store.update_message(msg["id"], task_id=other["id"], content=text("c"))


async def test_pages_walk_both_ways_without_gaps_even_after_a_delete(store: SqlStore, db_url: str) -> None:
    task = await store.create_task()
    stamp = parse_time("2025-01-01T00:00:00Z", ())
    # Two batches with the same base: created_at ties across messages, broken by sequence.
    await store.create_messages(task["id"], [text(f"a{i}") for i in range(6)], created_at=stamp)
    await store.create_messages(task["id"], [text(f"b{i}") for i in range(6)], created_at=stamp)
    everything = [m["id"] for m in await store.list_messages(task["id"], limit=100)]
    seen, cursor = [], None
    while True:
        page = await store.page_messages(task["id"], limit=5, cursor=cursor)
        seen += [m["id"] for m in page.data]
        if not page.has_more:
            assert page.next_cursor is None
            break
        cursor = page.next_cursor
        # Deleting the message a cursor points at must not restart or break the walk.
        await execute(db_url, f"DELETE FROM messages WHERE id = '{seen[-1]}'")
    assert seen == everything


async def test_newer_pages_are_the_messages_adjacent_above_the_cursor(store: SqlStore) -> None:
    task = await store.create_task()
    await store.create_messages(task["id"], [text(str(i)) for i in range(12)])
    newest_first = [m["content"]["content"] for m in await store.list_messages(task["id"])]
    first = await store.page_messages(task["id"], limit=4)
    second = await store.page_messages(task["id"], limit=4, cursor=first.next_cursor)
    assert [m["content"]["content"] for m in second.data] == newest_first[4:8]
    up = await store.page_messages(task["id"], limit=2, cursor=second.next_cursor, newer=True)
    assert [m["content"]["content"] for m in up.data] == newest_first[5:7]
    assert up.has_more
    top = await store.page_messages(task["id"], limit=10, cursor=up.next_cursor, newer=True)
    assert [m["content"]["content"] for m in top.data] == newest_first[0:5]
    assert not top.has_more and top.next_cursor is None


async def test_cursor_of_another_task_or_garbage_is_an_input_error(store: SqlStore) -> None:
    a, b = await store.create_task(), await store.create_task()
    await store.create_messages(a["id"], [text("1"), text("2")])
    page = await store.page_messages(a["id"], limit=1)
    with pytest.raises(InputError, match="another task"):
        await store.page_messages(b["id"], cursor=page.next_cursor)
    with pytest.raises(InputError, match="invalid cursor"):
        await store.page_messages(a["id"], cursor="not-a-cursor!")


async def test_filters_include_exclude_and_status(store: SqlStore) -> None:
    task = await store.create_task()
    data = lambda t: {"type": "data", "author": "agent", "style": "static", "data": {"type": t, "n": 1}}  # noqa: E731
    await store.create_messages(task["id"], [data("x"), data("error_report"), text("hi"), text("1")])
    await store.create_messages(task["id"], [text("live")], streaming_status="IN_PROGRESS")

    def names(rows: list) -> list:
        return sorted(
            str(m["content"].get("content", m["content"].get("data", {}).get("type"))) for m in rows
        )

    async def q(f: str) -> list:
        return names(await store.list_messages(task["id"], filters=parse_filters(f)))

    assert await q('{"content":{"type":"data"}}') == ["error_report", "x"]
    assert await q(
        '[{"content":{"type":"data"}},{"content":{"data":{"type":"error_report"}},"exclude":true}]'
    ) == ["x"]
    assert await q('[{"content":{"content":"hi"}},{"content":{"data":{"type":"x"}}}]') == ["hi", "x"]
    assert await q('{"content":{"data":{"n":1}}}') == ["error_report", "x"]
    assert await q('{"content":{"content":1}}') == []  # the string "1" is not the number 1
    assert await q('{"streaming_status":"IN_PROGRESS"}') == ["live"]
    with pytest.raises(InputError):
        parse_filters('{"nonexistent_field":"value"}')


async def test_append_messages_stores_canonical_turns(store: SqlStore) -> None:
    task = await store.create_task()
    turn = [
        Message("assistant", [TextBlock("hello")]),
        Message("tool", [ToolCallBlock("c1", "search", {"q": "x"})]),
    ]
    stored = await store.append_messages(task["id"], turn)
    assert [m["content"]["type"] for m in stored] == ["text", "tool_request"]
    assert stored[0]["content"]["author"] == "agent" and stored[0]["streaming_status"] == "DONE"
    assert stored[1]["content"]["arguments"] == {"q": "x"}


async def test_task_get_or_create_by_name(store: SqlStore) -> None:
    first = await store.create_task(name="n", params={"a": 1}, task_metadata={"m": 1})
    again = await store.create_task(name="n", params={"b": 2}, task_metadata={"m": 2})
    assert again["id"] == first["id"]
    assert again["params"] == {"b": 2} and again["task_metadata"] == {"m": 1}
    listed = await store.list_tasks(task_metadata={"m": 1})
    assert [t["id"] for t in listed] == [first["id"]]
    cancelled = await store.transition_task(first["id"], "CANCELED")
    assert cancelled["status"] == "CANCELED"
    with pytest.raises(ConflictError, match="cannot be transitioned"):
        await store.transition_task(first["id"], "COMPLETED")
