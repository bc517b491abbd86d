"""``update_messages_json``: the batch update's answer written as bytes must be exactly what
``orjson.dumps`` makes of the records a read returns, on SQLite and PostgreSQL, whatever the ids,
statuses and contents hold; and it refuses what ``update_messages`` refuses, writing nothing."""

from __future__ import annotations

import orjson
import pytest

from turnwire.store import ConflictError, NewRow, NotFoundError, SqlStore
from turnwire.store.clock import MS, now_us

pytestmark = pytest.mark.anyio


def text(s: str, **extra: object) -> dict:
    return {
        "type": "text",
        "author": "agent",
        "style": "static",
        "format": "plain",
        "content": s,
        "attachments": None,
        **extra,
    }


async def reads(store: SqlStore, ids: list[str]) -> bytes:
    return orjson.dumps([await store.get_message(mid) for mid in ids])


async def test_the_answer_is_the_bytes_of_what_a_read_returns(store: SqlStore) -> None:
    task = (await store.create_task())["id"]
    made = await store.create_messages(task, [text(str(i)) for i in range(300)], streaming_status="DONE")
    made += await store.create_messages(task, [text("open")], streaming_status="IN_PROGRESS")
    made += await store.create_messages(task, [text("plain")])
    edits = {m["id"]: text(f'new {i} é ✓ "q" \\ \n 🙂') for i, m in enumerate(reversed(made))}
    edits[made[0]["id"]] = {"type": "data", "author": "user", "style": "active", "data": {"x": [1.5, None]}}
    answer = await store.update_messages_json(task, edits)
    assert answer == await reads(store, list(edits))  # request order, every status, any content
    assert [m["streaming_status"] for m in orjson.loads(answer)[:2]] == [None, "IN_PROGRESS"]
    # The dict answer of the same kind of call agrees, field for field.
    again = {mid: text("third") for mid in list(edits)[:50]}
    assert orjson.dumps(await store.update_messages(task, again)) == await reads(store, list(again))


async def test_ids_that_need_quoting_are_quoted_as_orjson_does(store: SqlStore) -> None:
    task = (await store.create_task())["id"]
    now = now_us()
    odd = ['a"b', "back\\slash", "tab\tnew\nline", "é-ü", "🙂", "plain-dash", "with space"]
    content = orjson.dumps(text("old")).decode()
    await store.write_flush(
        task, [NewRow(mid, content, "DONE", now + i * MS, now) for i, mid in enumerate(odd)], []
    )
    edits = {mid: text(f"new {mid}") for mid in odd}
    assert await store.update_messages_json(task, edits) == await reads(store, odd)


async def test_refusals_and_empty_batches_match_update_messages(store: SqlStore) -> None:
    a, b = (await store.create_task())["id"], (await store.create_task())["id"]
    (mine,) = await store.create_messages(a, [text("1")])
    (theirs,) = await store.create_messages(b, [text("2")])
    assert await store.update_messages_json(a, {}) == b"[]"
    with pytest.raises(NotFoundError):
        await store.update_messages_json(a, {mine["id"]: text("x"), "missing": text("y")})
    with pytest.raises(ConflictError) as info:
        await store.update_messages_json(a, {mine["id"]: text("x"), theirs["id"]: text("y")})
    assert info.value.data == {"message_ids": [theirs["id"]]}
    assert (await store.get_message(mine["id"]))["content"]["content"] == "1"  # nothing written


@pytest.mark.parametrize("as_json", [True, False])
async def test_a_tenant_updates_only_its_live_tasks_checked_in_the_same_transaction(
    store: SqlStore, as_json: bool
) -> None:
    update = store.update_messages_json if as_json else store.update_messages
    task = (await store.create_task(tenant="acme"))["id"]
    (msg,) = await store.create_messages(task, [text("1")])
    for tenant in ("other", ""):  # another tenant's, and the keyless server's
        with pytest.raises(NotFoundError):
            await update(task, {msg["id"]: text("x")}, tenant=tenant)
        with pytest.raises(NotFoundError):
            await update(task, {}, tenant=tenant)
    assert (await store.get_message(msg["id"]))["content"]["content"] == "1"
    done = await update(task, {msg["id"]: text("2")}, tenant="acme")
    assert done == (await reads(store, [msg["id"]]) if as_json else [await store.get_message(msg["id"])])
    assert await update(task, {}, tenant="acme") == (b"[]" if as_json else [])
    await store.delete_task(task)
    with pytest.raises(NotFoundError):
        await update(task, {msg["id"]: text("3")}, tenant="acme")
    with pytest.raises(NotFoundError):
        await update(task, {}, tenant="acme")
