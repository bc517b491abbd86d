"""Branches in the store's own terms: parents, a rewind's new branch, reading and listing them."""

from __future__ import annotations

from typing import Any

import pytest

from turnwire.conversations.recording import TurnRecorder
from turnwire.conversations.stored import open_conversation
from turnwire.model import Message, MessageDelta, MessageEnd, MessageStart, TextBlock
from turnwire.store import NotFoundError, SqlStore

pytestmark = pytest.mark.anyio


def text(author: str, body: str) -> dict[str, Any]:
    return {"type": "text", "author": author, "style": "static", "content": body}


def texts(messages: list[Any]) -> list[str]:
    return [m.record["content"]["content"] for m in messages]


async def test_messages_chain_on_the_last_one_by_default_and_a_rewind_starts_a_branch(
    store: SqlStore,
) -> None:
    task = (await store.create_task(name="tree"))["id"]
    a, b, c = await store.create_messages(task, [text("user", "a"), text("agent", "b"), text("user", "c")])
    [d] = await store.create_messages(task, [text("agent", "d")])
    # An edit of "c": a new branch after "b".
    c2, d2 = await store.create_messages(task, [text("user", "c2"), text("agent", "d2")], parent_id=b["id"])
    # A new first message: a branch sharing nothing.
    [z] = await store.create_messages(task, [text("user", "z")], parent_id=None)

    thread = await store.thread_messages(task)
    parents = {m.id: m.parent_id for m in thread}
    assert parents == {
        a["id"]: None,
        b["id"]: a["id"],
        c["id"]: b["id"],
        d["id"]: c["id"],
        c2["id"]: b["id"],
        d2["id"]: c2["id"],
        z["id"]: None,
    }
    assert texts(await store.read_branch(task)) == ["z"]  # the latest
    assert texts(await store.read_branch(task, d["id"])) == ["a", "b", "c", "d"]
    assert texts(await store.read_branch(task, d2["id"])) == ["a", "b", "c2", "d2"]
    assert texts(await store.read_branch(task, b["id"])) == ["a", "b"]  # any message ends a branch
    branches = await store.list_branches(task)
    assert [(br.leaf_id, br.fork_id, br.latest) for br in branches] == [
        (d["id"], b["id"], False),
        (d2["id"], b["id"], False),
        (z["id"], None, True),
    ]
    assert [br.created_at for br in branches] == [c["created_at"], c2["created_at"], z["created_at"]]
    with pytest.raises(NotFoundError):
        await store.read_branch(task, "no-such-message")
    # Records stay the wire's: no parent, no note.
    assert set(await store.get_message(d2["id"])) == {
        "id",
        "task_id",
        "content",
        "streaming_status",
        "created_at",
        "updated_at",
    }


def user(body: str, message_id: str) -> Message:
    return Message("user", [TextBlock(body)], id=message_id)


async def _turn(store: SqlStore, history: list[Message], answer: str, *, batch: bool) -> None:
    conversation = await open_conversation(store, "chat", history)

    async def events():
        yield MessageStart(id="m")
        yield MessageDelta(id="m", delta=answer)
        yield MessageEnd(id="m")

    recorder = TurnRecorder(
        store,
        conversation.task_id,
        inbound=conversation.take_inbound(),
        batch=batch,
        flush_interval=60,
        message_id="msg-" + answer,
        turn_id="t-" + answer,
    )
    [e async for e in recorder.record(events())]


@pytest.mark.parametrize("batch", [False, True], ids=["streamed", "batch"])
async def test_an_edited_message_is_a_new_branch_of_the_recorded_conversation(
    store: SqlStore, batch: bool
) -> None:
    await _turn(store, [user("one", "u1")], "A1", batch=batch)
    first = [user("one", "u1"), Message("assistant", [TextBlock("A1")]), user("two", "u2")]
    await _turn(store, first, "A2", batch=batch)
    edited = [*first[:2], user("two, edited", "u3")]
    await _turn(store, edited, "A3", batch=batch)
    task = (await store.get_task_by_name("chat"))["id"]

    latest = await store.read_branch(task)
    assert texts(latest) == ["one", "A1", "two, edited", "A3"]
    # The client's message ids and the turn's ids are in the notes, not the contents.
    assert [m.note.get("message_id") for m in latest] == ["u1", "msg-A1", "u3", "msg-A3"]
    assert latest[-1].note["turn"] == "t-A3"
    old, new = await store.list_branches(task)
    assert texts(await store.read_branch(task, old.leaf_id)) == ["one", "A1", "two", "A2"]
    assert old.fork_id == new.fork_id == latest[1].id and new.latest and not old.latest
    # No marker is written: the log holds the two branches' messages and nothing else.
    assert len(await store.thread_messages(task)) == 6
