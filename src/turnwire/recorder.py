"""Recording turns on their session's task, whichever front door ran them.

``prepare_session`` (or ``session_on_task``) finds the task and works out which of the client's
messages are new (``conversation.plan_inbound``); ``TurnRecorder.record`` wraps a turn's event
stream, stores those new messages and the turn's output as TaskMessages, and publishes
TaskMessageUpdate frames on the task's topic. ``/invoke``, ``/chat`` and ``message/send`` all go
through here, so they store and publish a turn identically.

A streamed turn writes few statements: the inbound messages once, one insert per message at its
start (or per whole message), the open messages' accumulated content at most every
``flush_interval`` seconds (one statement for all of them), one update at each message's end.
Deltas themselves are never written one by one. A batch turn (``batch=True``: the caller answers
only when the turn is over) writes nothing until the end, then its inbound and output messages in
one transaction — one insert.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Final

from turnwire.conversation import InboundPlan, continue_stored, effective, plan_inbound, to_messages
from turnwire.formats.agentex import TaskUpdateEncoder
from turnwire.model import Event, Message
from turnwire.pubsub import PubSub
from turnwire.store.base import Store
from turnwire.store.errors import NotFoundError

log = logging.getLogger("turnwire.recorder")

FLUSH_INTERVAL: Final = 0.1
PAGE: Final = 10_000
IN_PROGRESS: Final = "IN_PROGRESS"
DONE: Final = "DONE"
_closing: set[asyncio.Task[None]] = set()


async def task_for_session(store: Store, session_id: str) -> dict[str, Any]:
    """The session's task: the task whose id is ``session_id``, else the one named ``session_id``
    (created on first use). Raises ``ConflictError`` if that name belongs to a deleted task."""
    try:
        return await store.get_task(session_id)
    except NotFoundError:
        pass
    try:
        return await store.get_task_by_name(session_id)
    except NotFoundError:
        return await store.create_task(name=session_id)


async def stored_conversation(store: Store, task_id: str) -> list[dict[str, Any]]:
    """The task's TaskMessages, oldest first, with rewinds applied (``conversation.effective``)."""
    records: list[dict[str, Any]] = []
    while True:
        page = await store.list_messages(task_id, limit=PAGE, offset=len(records), descending=False)
        records.extend(page)
        if len(page) < PAGE:
            return effective(records)


@dataclass(slots=True)
class Session:
    """A turn's place in the store: its task, the history the agent runs on, and what to write."""

    task: dict[str, Any]
    history: list[Message]
    plan: InboundPlan

    @property
    def task_id(self) -> str:
        return self.task["id"]

    def take_inbound(self) -> list[dict[str, Any]]:
        """The contents to store for the client's new messages; empty on every later call, so they
        are written once however often this is called."""
        new = self.plan.contents()
        self.plan = InboundPlan()
        return new

    async def commit(self, store: Store) -> list[dict[str, Any]]:
        """Store the client's new messages (one transaction); returns the stored TaskMessages."""
        new = self.take_inbound()
        return await store.create_messages(self.task_id, new, streaming_status=DONE) if new else []


async def prepare_session(
    store: Store, session_id: str, messages: list[Message], *, from_store: bool = False
) -> Session:
    """Find or create the session's task and work out what in ``messages`` is new (nothing written
    but the task itself; call ``Session.commit`` once the request is accepted).

    ``from_store=False``: ``messages`` is the client's whole history; the agent runs on it as sent.
    ``from_store=True``: ``messages`` are only the new ones; the agent runs on the stored
    conversation followed by them, which is the history a client sending everything would send.
    """
    return await session_on_task(
        store, await task_for_session(store, session_id), messages, from_store=from_store
    )


async def session_on_task(
    store: Store, task: dict[str, Any], messages: list[Message], *, from_store: bool = False
) -> Session:
    """``prepare_session`` for a task already found (``message/send`` names its task directly)."""
    current = await stored_conversation(store, task["id"])
    contents = [r["content"] for r in current]
    history = continue_stored(to_messages(current), messages) if from_store else messages
    return Session(task, history, plan_inbound(contents, history))


def apply_delta(content: dict[str, Any], delta: dict[str, Any]) -> None:
    """Add one TaskMessageDelta to an accumulated content (in place)."""
    kind = delta.get("type")
    if kind == "text":
        content["content"] += delta.get("text_delta") or ""
    elif kind in ("reasoning_content", "reasoning_summary"):
        key, index_key, text_key = (
            ("content", "content_index", "content_delta")
            if kind == "reasoning_content"
            else ("summary", "summary_index", "summary_delta")
        )
        parts = content.get(key) or []
        index = delta.get(index_key) or 0
        while len(parts) <= index:
            parts.append("")
        parts[index] += delta.get(text_key) or ""
        content[key] = parts


class _Open:
    __slots__ = ("content", "dirty", "record")

    def __init__(self, record: dict[str, Any] | None, content: dict[str, Any]) -> None:
        self.record = record
        self.content = content
        self.dirty = False


class TurnRecorder:
    """Stores one turn on ``task_id`` — ``inbound`` contents first, then the turn's output — and
    publishes its TaskMessageUpdate frames.

    Streamed (the default): every message is stored as it starts and ends ``DONE`` — when the turn
    ends, pauses or fails, and when the stream is closed or cancelled early (the client went away):
    the closing writes run to completion even then. Frames carry their stored parent.

    ``batch=True``: nothing is written while the turn runs; at its end (however it ends) the inbound
    and output contents are stored ``DONE`` in one transaction, and one ``full`` frame per output
    message is published with its stored parent. Frames yielded while running carry no parent.

    ``finals`` collects the finished output TaskMessages (streamed: in the order they finished;
    batch: in the order they started).
    """

    def __init__(
        self,
        store: Store,
        task_id: str,
        pubsub: PubSub | None = None,
        *,
        inbound: Sequence[dict[str, Any]] = (),
        batch: bool = False,
        flush_interval: float = FLUSH_INTERVAL,
    ) -> None:
        self.store = store
        self.task_id = task_id
        self.pubsub = pubsub
        self.inbound = list(inbound)
        self.batch = batch
        self.flush_interval = flush_interval
        self.encoder = TaskUpdateEncoder(task_id)
        self.finals: list[dict[str, Any]] = []
        self._open: dict[int, _Open] = {}
        self._collected: dict[int, _Open] = {}  # batch: every output message, by index
        self._last_flush = time.monotonic()

    async def record(self, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
        """``events``, unchanged and undelayed but for the store writes described above."""
        frames = self.record_frames(events)
        try:
            async for event, _ in frames:
                yield event
        finally:
            # Closed early (client gone): finish the recording now, not whenever GC gets to it.
            await frames.aclose()

    async def record_frames(
        self, events: AsyncIterator[Event]
    ) -> AsyncGenerator[tuple[Event, list[dict[str, Any]]], None]:
        """Like ``record``, with each event's TaskMessageUpdate frames (parents filled in when
        streamed)."""
        encode = self.encoder.encode
        try:
            if not self.batch and self.inbound:
                inbound, self.inbound = self.inbound, []
                await self.store.create_messages(self.task_id, inbound, streaming_status=DONE)
            async for event in events:
                frames = encode(event)
                if self.batch:
                    for frame in frames:
                        self._collect(frame)
                else:
                    for frame in frames:
                        await self._store_frame(frame)
                yield event, frames
        finally:
            closing = asyncio.get_running_loop().create_task(self._finish(events))
            _closing.add(closing)
            closing.add_done_callback(_closing.discard)
            # Shielded: a cancelled stream (client gone) must still leave the turn stored.
            await asyncio.shield(closing)

    def _collect(self, frame: dict[str, Any]) -> None:
        kind, index = frame["type"], frame["index"]
        if kind == "delta":
            entry = self._collected.get(index)
            if entry is not None:
                apply_delta(entry.content, frame["delta"])
        elif kind in ("start", "full"):
            self._collected[index] = _Open(None, copy.deepcopy(frame["content"]))

    async def _store_frame(self, frame: dict[str, Any]) -> None:
        kind, index = frame["type"], frame["index"]
        store, task_id = self.store, self.task_id
        if kind == "delta":
            entry = self._open.get(index)
            if entry is not None:
                apply_delta(entry.content, frame["delta"])
                entry.dirty = True
                if time.monotonic() - self._last_flush >= self.flush_interval:
                    await self.flush()
        elif kind in ("start", "full"):
            status = IN_PROGRESS if kind == "start" else DONE
            record = (
                await store.create_messages(
                    task_id, [frame["content"]], streaming_status=status, owned=kind == "start"
                )
            )[0]
            self.encoder.bind(index, record)
            frame["parent_task_message"] = record
            if kind == "start":
                self._open[index] = _Open(record, copy.deepcopy(frame["content"]))
            else:
                self.finals.append(record)
        elif kind == "done":
            entry = self._open.pop(index, None)
            if entry is not None and entry.record is not None:
                final = await store.update_message(
                    entry.record["id"], task_id=task_id, content=entry.content, streaming_status=DONE
                )
                self.encoder.bind(index, final)
                frame["parent_task_message"] = final
                self.finals.append(final)
        if self.pubsub is not None:
            self.pubsub.publish(task_id, frame)

    async def flush(self) -> None:
        """Write the content accumulated so far in every open message, in one statement (they stay
        ``IN_PROGRESS``)."""
        self._last_flush = time.monotonic()
        dirty = [e for e in self._open.values() if e.dirty and e.record is not None]
        if dirty:
            await self.store.update_contents(self.task_id, {e.record["id"]: e.content for e in dirty})  # type: ignore[index]
            for entry in dirty:
                entry.dirty = False

    async def _finish(self, events: AsyncIterator[Event]) -> None:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:
                log.exception("closing a turn's events failed")
        if self.batch:
            await self._store_batch()
            return
        for index, entry in list(self._open.items()):
            if entry.record is None:
                continue
            try:
                final = await self.store.update_message(
                    entry.record["id"], task_id=self.task_id, content=entry.content, streaming_status=DONE
                )
            except Exception:
                log.exception("could not close message %s", entry.record["id"])
                continue
            self._open.pop(index, None)
            self.finals.append(final)
            if self.pubsub is not None:
                self.pubsub.publish(
                    self.task_id, {"type": "done", "index": index, "parent_task_message": final}
                )

    async def _store_batch(self) -> None:
        inbound, self.inbound = self.inbound, []
        indexes = sorted(self._collected)
        contents = [*inbound, *(self._collected[i].content for i in indexes)]
        self._collected = {}
        if not contents:
            return
        stored = await self.store.create_messages(self.task_id, contents, streaming_status=DONE)
        outputs = stored[len(inbound) :]
        self.finals.extend(outputs)
        if self.pubsub is not None:
            for index, record in zip(indexes, outputs, strict=True):
                self.pubsub.publish(
                    self.task_id,
                    {
                        "type": "full",
                        "index": index,
                        "content": record["content"],
                        "parent_task_message": record,
                    },
                )
