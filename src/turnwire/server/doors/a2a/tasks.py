"""A2A tasks read back from the store: a task is the turns of one answer in one session.

Task id ``<session id>~<key>``: the session (the A2A ``contextId``) and a key the door draws when
the task starts. Every turn of the task (the first, and each one that answers its approvals or
questions) is recorded with the answer id ``a2a-<key>`` (``TurnRequest.message_id``), so the task
is found in the stored conversation on any worker and after a restart, and the conversation
reads on every other door as one answer. Sessions are per tenant, so another tenant's task id
names a session the caller does not have: task not found.

A task's state comes from what its last turn left: running (here or on another worker, the live
turn's ``wire`` names the task) → working; else the stop reason the recorder noted on the turn's
last content, through the format's table (``task.TASK_STATES``: paused → input-required, cancelled
→ canceled, error → failed, …); a turn a dead server left unfinished (an interruption marker) →
canceled.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.conversations.planning import INTERRUPTED, marker_type
from turnwire.conversations.stored import read_conversation
from turnwire.conversations.turn_endings import SETTLE_SECONDS, settled
from turnwire.formats.a2a import render_task
from turnwire.formats.a2a.task import COMPLETED, FAILED, INPUT_REQUIRED, WORKING, task_state
from turnwire.formats.agentex import content_to_message
from turnwire.model import InteractionRequest, Message, StopReason
from turnwire.server.context import AppContext
from turnwire.server.doors.a2a.rpc import task_not_found
from turnwire.server.turns.running import live_key
from turnwire.store.base import StoredMessage
from turnwire.store.errors import NotFoundError

SEPARATOR: Final = "~"
ANSWER_PREFIX: Final = "a2a-"
WIRE_PREFIX: Final = "a2a/"
"""A live turn's ``wire`` when it is an A2A task's turn streamed as ``StreamResponse`` events."""
_KEY = re.compile(r"[A-Za-z0-9]{1,64}")
_SESSION = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def task_id_of(session_id: str, key: str) -> str:
    return f"{session_id}{SEPARATOR}{key}"


def split_task_id(task_id: Any) -> tuple[str, str] | None:
    """``(session id, key)`` of a task id this door made, else ``None``."""
    if not isinstance(task_id, str):
        return None
    session, sep, key = task_id.rpartition(SEPARATOR)
    if not sep or not _SESSION.fullmatch(session) or not _KEY.fullmatch(key):
        return None
    return session, key


def answer_id(key: str) -> str:
    return ANSWER_PREFIX + key


def wire_of(key: str) -> str:
    return WIRE_PREFIX + key


@dataclass(slots=True)
class StoredTask:
    """A task as the store and the live turns have it."""

    task_id: str
    session_id: str
    key: str
    messages: list[Message] = field(default_factory=list)
    state: str = COMPLETED
    pending: list[InteractionRequest] = field(default_factory=list)
    error: str | None = None

    def render(self, history_length: int | None = None) -> dict[str, Any]:
        pending = self.pending if self.state == INPUT_REQUIRED else ()
        error = self.error if self.state == FAILED else None
        return render_task(
            self.task_id,
            self.session_id,
            self.messages,
            self.state,
            pending=pending,
            error=error,
            history_length=history_length,
        )

    @property
    def texts(self) -> int:
        """How many text artifacts the task has (a resumed turn numbers its own after them)."""
        return sum(1 for m in self.messages if m.role == "assistant" for b in m.content if b.type == "text")


async def running_here_or_elsewhere(app: AppContext, session_id: str, key: str) -> bool:
    """Whether the task's turn is running, on this process or (the Redis mirror) another."""
    lk = live_key(app, session_id)
    live = app.turns.get(lk)
    if live is not None and not live.done:
        return live.wire == wire_of(key)
    found = await app.turns.elsewhere(lk)
    return found is not None and found[1] == wire_of(key)


async def load_task(app: AppContext, task_id: Any) -> StoredTask:
    """The task ``task_id`` of the caller's tenant; ``RpcError`` task not found otherwise."""
    parts = split_task_id(task_id)
    if parts is None or app.store is None:
        raise task_not_found(str(task_id))
    session_id, key = parts
    running = await running_here_or_elsewhere(app, session_id, key)
    if not running:
        # A turn that has just sent its end (here or on another worker) may not be stored to its
        # end yet, where its stop reason is noted: read the task once it is.
        await app.turns.settled(live_key(app, session_id), SETTLE_SECONDS)
    records = await session_records(app, session_id, settle=not running)
    task = task_from_records(task_id, session_id, key, records)
    if task is None:
        if not running:
            raise task_not_found(task_id)
        task = StoredTask(task_id, session_id, key)
    if running:
        task.state, task.pending, task.error = WORKING, [], None
    return task


async def session_records(app: AppContext, session_id: str, *, settle: bool = False) -> list[StoredMessage]:
    """The session's stored conversation (``[]`` when the tenant has no such session); with
    ``settle``, read once this process's turns that sent their end are stored."""
    store = app.store
    if store is None:
        return []
    try:
        stored = await store.get_task_by_name(session_id)
    except NotFoundError:
        return []
    if settle:
        await settled(stored["id"])
    return await read_conversation(store, stored["id"])


def task_keys(records: Sequence[StoredMessage]) -> list[str]:
    """The keys of the A2A tasks in a session's conversation, oldest first."""
    keys: list[str] = []
    for record in records:
        answer = record.note.get("message_id")
        if isinstance(answer, str) and answer.startswith(ANSWER_PREFIX):
            key = answer[len(ANSWER_PREFIX) :]
            if key not in keys:
                keys.append(key)
    return keys


def task_from_records(
    task_id: str, session_id: str, key: str, records: Sequence[StoredMessage]
) -> StoredTask | None:
    """The task ``key`` of a session's conversation: the user's message that started it, then
    every content of its turns and the answers between them; ``None`` if it wrote nothing."""
    answer = answer_id(key)
    mine = [i for i, r in enumerate(records) if r.note.get("message_id") == answer]
    if not mine:
        return None
    start = mine[0]
    # The client's messages are stored before the turn's contents, without a turn's note.
    while start > 0 and not records[start - 1].note.get("turn"):
        start -= 1
    end = mine[-1]
    last_turn = records[end].note.get("turn")
    task = StoredTask(task_id, session_id, key)
    stop_reason: str | None = None
    for record in records[start : end + 1]:
        content, note = record.record["content"], record.note
        mine_now = note.get("turn") == last_turn
        if mine_now and isinstance(note.get("stop_reason"), str):
            stop_reason = note["stop_reason"]  # the recorder notes it on the turn's last content
        data = content.get("data") if content.get("type") == "data" else None
        kind = data.get("type") if isinstance(data, dict) and not note.get("wrapped") else None
        if kind == "interaction_request":
            if mine_now and isinstance(data.get("id"), str):  # type: ignore[union-attr]
                task.pending.append(_request(data))  # type: ignore[arg-type]
            continue
        if kind == "error":
            if mine_now:
                task.error = str(data.get("message") or "The agent run failed.")  # type: ignore[union-attr]
            continue
        if note.get("transient") or marker_type(content) is not None:
            continue
        task.messages.append(content_to_message(content, record.id, note))
    interrupted = any(marker_type(r.record["content"]) == INTERRUPTED for r in records[end : end + 2])
    if interrupted and stop_reason is None:
        stop_reason = StopReason.CANCELLED
    if stop_reason is None and task.pending:
        stop_reason = StopReason.PAUSED
    task.state = task_state(stop_reason, error=task.error is not None and stop_reason in (None, "error"))
    return task


def _request(data: dict[str, Any]) -> InteractionRequest:
    return InteractionRequest(data["id"], str(data.get("kind") or ""), data.get("payload"))
