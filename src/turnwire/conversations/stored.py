"""A conversation as stored: find a session's task, read its conversation, plan what is new.

``open_conversation`` (or ``conversation_on_task``) finds the task and works out which of the
client's messages are new (``planning.plan_inbound``); the ``TurnRecorder`` then writes them with
the turn's output.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.conversations.planning import InboundPlan, branch_messages, continue_stored, plan_inbound
from turnwire.model import Message
from turnwire.store.base import LAST, Store, StoredMessage
from turnwire.store.errors import NotFoundError

DONE: Final = "DONE"


async def task_for_session(store: Store, session_id: str) -> dict[str, Any]:
    """The session's task: the task whose id is ``session_id``, else the one named ``session_id``
    (created on first use). Raises ``ConflictError`` if that name belongs to a deleted task."""
    return (await store.session_task(session_id)).task


async def read_conversation(store: Store, task_id: str, leaf_id: str | None = None) -> list[StoredMessage]:
    """The task's conversation: one branch (``store.branches``; default the latest), oldest first,
    each message with its note."""
    return await store.read_branch(task_id, leaf_id)


async def stored_conversation(store: Store, task_id: str) -> list[dict[str, Any]]:
    """The TaskMessages of the task's latest branch, oldest first."""
    return [m.record for m in await read_conversation(store, task_id)]


class Inbound(list[dict[str, Any]]):
    """The contents ``Conversation.take_inbound`` gives the recorder, and beside them their
    ``notes`` and the stored message the first new one follows (``parent_id``; ``None``: none)."""

    def __init__(
        self, contents: list[dict[str, Any]], notes: list[dict[str, Any] | None], parent_id: str | None
    ) -> None:
        super().__init__(contents)
        self.notes = notes
        self.parent_id = parent_id


@dataclass(slots=True)
class Conversation:
    """A session's stored conversation as a turn starts: its task, the history the agent runs on, and
    which of the client's messages to write."""

    task: dict[str, Any]
    history: list[Message]
    plan: InboundPlan
    clock: int | None = None
    """The task's message clock as read with the task (``TurnRecorder``'s ``clock``), if it was."""
    stored: list[dict[str, Any]] = field(default_factory=list)
    """The task's conversation (TaskMessages) as read when the turn started."""
    parent_id: str | None = None
    """The stored message the turn's first new message follows (``InboundPlan.parent_id``)."""

    @property
    def task_id(self) -> str:
        return self.task["id"]

    def take_inbound(self) -> Inbound:
        """The contents to store for the client's new messages, with their notes and parent; empty
        on every later call, so they are written once however often this is called (the turn's
        output then follows the last message written)."""
        plan, self.plan = self.plan, InboundPlan()
        inbound = Inbound(plan.new, plan.notes, self.parent_id)
        if plan.new:
            self.parent_id = LAST
        return inbound

    async def commit(self, store: Store) -> list[dict[str, Any]]:
        """Store the client's new messages (one transaction); returns the stored TaskMessages."""
        new = self.take_inbound()
        if not new:
            return []
        return await store.create_messages(
            self.task_id, new, streaming_status=DONE, notes=new.notes, parent_id=new.parent_id
        )


async def open_conversation(
    store: Store,
    session_id: str,
    messages: list[Message],
    *,
    from_store: bool = False,
    agent: str | None = None,
) -> Conversation:
    """Find or create the session's task and work out what in ``messages`` is new (nothing written
    but the task itself, whose agent is ``agent`` when this creates it; call
    ``Conversation.commit`` once the request is accepted).

    ``from_store=False``: ``messages`` is the client's whole history; the agent runs on it as sent.
    ``from_store=True``: ``messages`` are only the new ones; the agent runs on the stored
    conversation followed by them, which is the history a client sending everything would send.
    """
    # The task's row need not be written before the turn's first frame: it is queued ahead of the
    # turn's own writes (``Store.session_task_soon``).
    found = await store.session_task_soon(session_id, agent=agent)
    # A task this call just created has nothing to read: whatever another request wrote since came
    # after this one's creation, so reading at creation time (empty) is as correct.
    current = [] if found.created else await read_conversation(store, found.task["id"])
    conversation = _conversation(found.task, current, messages, from_store)
    conversation.clock = found.clock
    return conversation


async def conversation_on_task(
    store: Store, task: dict[str, Any], messages: list[Message], *, from_store: bool = False
) -> Conversation:
    """``open_conversation`` for a task already found (``message/send`` names its task directly)."""
    return _conversation(task, await read_conversation(store, task["id"]), messages, from_store)


def _conversation(
    task: dict[str, Any], current: list[StoredMessage], messages: list[Message], from_store: bool
) -> Conversation:
    records = [m.record for m in current]
    history = continue_stored(branch_messages(current), messages) if from_store else messages
    plan = plan_inbound([r["content"] for r in records], history)
    return Conversation(task, history, plan, stored=records, parent_id=plan.parent_id(records))


async def find_task(store: Store, key: str) -> dict[str, Any]:
    """The task with id ``key``, else the one named ``key`` (a session id); ``NotFoundError``."""
    try:
        return await store.get_task(key)
    except NotFoundError:
        return await store.get_task_by_name(key)
