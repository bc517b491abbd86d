"""Recording turns on their session's task, whichever front door ran them.

``stored.open_conversation`` finds the task and works out which of the client's messages are new;
``TurnRecorder.record`` wraps a turn's event stream, stores those new messages and the turn's
output as TaskMessages, and publishes TaskMessageUpdate frames on the task's topic. ``/invoke``,
``/chat`` and ``message/send`` all go through here, so they store and publish a turn identically.

A streamed turn writes once per ``flush_interval`` (100 ms, ``Settings.flush_seconds``) at most,
never per message or delta, and at least once per interval while anything is unwritten (every
delta schedules the next flush), so a kill loses at most the last interval of a streaming message:
each flush is one transaction holding every pending create (a batch insert, inbound messages
first) and every pending update (one multi-row update). A message is created at the first flush
after it starts — one that ends before then is created once, already ``DONE``. Flushes run beside
the stream, on a timer, so a slow store never delays a frame; the last one runs when the turn
ends. A batch turn (``batch=True``: the caller answers only when the turn is over) writes nothing
until the end, then its inbound and output messages in one transaction — one insert.

The recorder picks each message's id and timestamps when it starts (after the task's clock, so
the stored order is the order of the turn), so the ``parent_task_message`` every frame carries is
the TaskMessage as stored, id and ``created_at`` included, even before its row exists.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from functools import partial
from typing import Any, Final

import orjson

from turnwire.conversations.pubsub import PubSub
from turnwire.conversations.write_retry import write_with_retries
from turnwire.formats.agentex import TaskUpdateEncoder, event_content
from turnwire.formats.agentex.annotations import KEY as ANNOTATION
from turnwire.formats.agentex.annotations import annotated, public_record
from turnwire.formats.agentex.messages import wraps_data
from turnwire.formats.agentex.updates import reasoning_content, text_content
from turnwire.model import (
    DataBlock,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)
from turnwire.store.base import NewRow, RowChange, Store
from turnwire.store.clock import MS, new_id, now_us, to_iso

log = logging.getLogger("turnwire.conversations.recording")

FLUSH_INTERVAL: Final = 0.1
IN_PROGRESS: Final = "IN_PROGRESS"
DONE: Final = "DONE"
_closing: set[asyncio.Task[None]] = set()
SETTLE_SECONDS: Final = 10.0
# Per task: the turns of this process that have sent their last chunk (done, error, or ended)
# but are not stored yet. The client may already be sending its next message.
_ending: dict[str, set[asyncio.Future[None]]] = {}


async def settled(task_id: str, timeout: float = SETTLE_SECONDS) -> bool:
    """Wait (at most ``timeout``) until this process's turns on ``task_id`` that already sent their
    last chunk are stored. True if there were any: what was read of the task before is stale.

    A chat client acts on a turn's ``error`` chunk at once (the AI SDK throws there and reads no
    further) while the agent may still be winding down and the recorder writes beside the
    stream; the next turn must plan against the store with that turn in it."""
    pending = _ending.get(task_id)
    if not pending:
        return False
    await asyncio.wait(list(pending), timeout=timeout)
    return True


def apply_delta(content: dict[str, Any], delta: dict[str, Any]) -> None:
    """Add one TaskMessageDelta to an accumulated content (in place). Each call copies the text it
    extends: for a stream of deltas use ``Accumulator``, which is linear in the message's length."""
    acc = Accumulator(content)
    acc.add(delta)
    acc.settle()


class Accumulator:
    """A streamed content and the delta pieces not yet joined into it.

    ``add`` only appends a piece to a list; ``settle`` joins the pieces into ``content`` (at a
    flush or when the message ends), so a message of n deltas costs O(n) however long it grows —
    ``text += delta`` on a string another object also holds copies it every time (O(n²)).
    """

    __slots__ = ("content", "pieces")

    def __init__(self, content: dict[str, Any]) -> None:
        self.content = content
        self.pieces: dict[tuple[str, int], list[str]] = {}

    def add(self, delta: dict[str, Any]) -> bool:
        """Queue one TaskMessageDelta; ``False`` if it changes nothing this content holds."""
        kind = delta.get("type")
        if kind == "text":
            key, text = ("content", -1), delta.get("text_delta")
        elif kind == "reasoning_content":
            key, text = ("content", delta.get("content_index") or 0), delta.get("content_delta")
        elif kind == "reasoning_summary":
            key, text = ("summary", delta.get("summary_index") or 0), delta.get("summary_delta")
        else:
            return False
        if not text:
            return False
        pieces = self.pieces.get(key)
        if pieces is None:
            self.pieces[key] = [text]
        else:
            pieces.append(text)
        return True

    def settle(self) -> dict[str, Any]:
        """Join the queued pieces into ``content``; returns it."""
        if not self.pieces:
            return self.content
        content = self.content
        for (key, index), pieces in self.pieces.items():
            if index < 0:
                content[key] = (content.get(key) or "") + "".join(pieces)
                continue
            parts = list(content.get(key) or [])
            while len(parts) <= index:
                parts.append("")
            parts[index] += "".join(pieces)
            content[key] = parts
        self.pieces = {}
        return content


class _Entry:
    """An output message of a streamed turn: its record's fields, and what is not written yet.

    A streamed message (``text`` True for text, False for reasoning) keeps its deltas as ``pieces``
    until a flush or its end joins them into ``content``; a whole one (``text`` None) is ``DONE``
    from the start. ``record`` and ``final`` are the TaskMessages its frames carry (as it started,
    as it ended), made only when a frame or ``finals`` needs them."""

    __slots__ = (
        "changes",
        "content",
        "created_at",
        "final",
        "id",
        "index",
        "note",
        "pieces",
        "record",
        "saved",
        "status",
        "text",
        "updated_at",
    )

    def __init__(
        self,
        index: int,
        content: dict[str, Any],
        text: bool | None,
        status: str,
        stamp: int,
        note: dict[str, Any],
    ) -> None:
        self.index = index
        self.id = new_id()
        self.content = content
        self.text = text
        self.pieces: list[str] = []
        self.note = note  # the stored content's annotation (``formats.agentex.annotations``)
        self.status = status
        self.created_at = self.updated_at = stamp
        self.changes = 1  # its creation
        self.saved = 0  # the version written (0: no row yet)
        self.record: dict[str, Any] | None = None
        self.final: dict[str, Any] | None = None

    def settle(self) -> dict[str, Any]:
        """Join the queued deltas into ``content`` (as ``Accumulator.settle``); returns it."""
        pieces = self.pieces
        content = self.content
        if not pieces:
            return content
        joined = pieces[0] if len(pieces) == 1 else "".join(pieces)
        self.pieces = []
        if self.text:
            content["content"] = (content.get("content") or "") + joined
        else:
            parts = list(content.get("content") or [""])
            parts[0] += joined
            content["content"] = parts
        return content

    def start_content(self) -> dict[str, Any]:
        """The content its first frame carried: empty for a streamed message, else the whole one."""
        if self.text is None:
            return self.content
        return text_content("") if self.text else reasoning_content([])


# What an event does to the streamed messages (exact classes; subclasses go through ``_stream_op``).
_START, _DELTA, _END = 1, 2, 3
_STREAM_OPS: Final[dict[type, tuple[int, bool]]] = {
    MessageStart: (_START, True),
    MessageDelta: (_DELTA, True),
    MessageEnd: (_END, True),
    ThoughtStart: (_START, False),
    ThoughtDelta: (_DELTA, False),
    ThoughtEnd: (_END, False),
}
_NOT_STREAM: Final = (0, False)
# The other events (exact classes), so that finding an event's op is one lookup.
_STREAM_OPS.update(
    dict.fromkeys(
        (
            MessageEvent,
            Thought,
            ToolCall,
            ToolResult,
            InteractionRequest,
            InteractionResponse,
            DataEvent,
            FileEvent,
            Usage,
            ErrorEvent,
            Done,
        ),
        _NOT_STREAM,
    )
)
_NO_CONTENT: Final = frozenset((Usage, Done))
"""Events ``event_content`` gives nothing for (exact classes: the common ones, asked first)."""
# The frames an event gave (``TurnRecorder._step``): none, start, delta, start then delta, done, full.
_NO_FRAME, _START_FRAME, _DELTA_FRAME, _START_DELTA, _DONE_FRAME, _FULL_FRAME = range(6)


def _stream_op(event: Event) -> tuple[int, bool]:
    """``_STREAM_OPS`` for a subclass of a stream event, in ``TaskUpdateEncoder.encode``'s order."""
    if isinstance(event, MessageStart | ThoughtStart):
        return _START, isinstance(event, MessageStart)
    if isinstance(event, MessageDelta):
        return _DELTA, True
    if isinstance(event, ThoughtDelta):
        return _DELTA, False
    if isinstance(event, MessageEnd | ThoughtEnd):
        return _END, isinstance(event, MessageEnd)
    return _NOT_STREAM


def _never(topic: str) -> bool:
    return False


def _always(topic: str) -> bool:
    return True


class TurnRecorder:
    """Stores one turn on ``task_id`` — ``inbound`` contents first, then the turn's output — and
    publishes its TaskMessageUpdate frames.

    Streamed (the default): frames go out as they come, each with its message's TaskMessage as
    parent; the store is written beside the stream (see the module docstring) and every message
    ends ``DONE`` — when the turn ends, pauses or fails, and when the stream is closed or cancelled
    early (the client went away): the closing write runs to completion even then, before the
    stream finishes. The stored contents are built from the events themselves; a frame is built
    only when something reads it: a subscriber of the task (``listened``), ``last_frames``,
    ``on_event`` or ``record_frames`` — from the same state, so a subscriber that joins mid-turn
    gets from then on exactly the frames it would have got had it been there from the start.

    ``batch=True``: nothing is written while the turn runs; at its end (however it ends) the inbound
    and output contents are stored ``DONE`` in one transaction, and one ``full`` frame per output
    message is published with its stored parent. Frames yielded while running carry no parent.

    ``finals`` collects the finished output TaskMessages (streamed: in the order they finished;
    batch: in the order they started).

    ``clock``: the task's message clock if the caller has just read it (``open_conversation`` reads
    it with the task); otherwise the recorder reads it before the first event.
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
        clock: int | None = None,
        message_id: str | None = None,
        turn_id: str | None = None,
    ) -> None:
        self.store = store
        self.task_id = task_id
        self.pubsub = pubsub
        self.inbound = list(inbound)
        self.batch = batch
        self.flush_interval = flush_interval
        # ``listened(topic)``: whether a frame published now would reach anyone. A pub/sub that
        # cannot tell (another process may read, as through Redis) gets every frame.
        self._listened = _never if pubsub is None else getattr(pubsub, "listened", _always)
        self._finals: list[Any] = []  # records (batch) or finished entries (streamed)
        self._frames: list[dict[str, Any]] | None = []
        self._step = _NO_FRAME
        self._step_entry: _Entry | None = None
        self._step_event: Any = None
        self._collected: dict[int, Accumulator] = {}  # batch: every output content, by index
        self._entries: dict[int, _Entry] = {}  # streamed: open or not yet written, by index
        self._open_messages: dict[str, _Entry] = {}  # streamed, by event id
        self._open_thoughts: dict[str, _Entry] = {}
        self._next_index = 0
        self._inbound_rows: list[NewRow] = []
        self._note_json: tuple[dict[str, Any], bytes] | None = None
        self._clock = 0
        self._known_clock = clock
        self._lock = asyncio.Lock()
        self._writer: Any = None  # the timer of the next flush, or the task writing
        self._timer: asyncio.TimerHandle | None = None
        self._sleeping = self._closed = self._failing = False
        self._last_flush = time.monotonic()
        self._note: dict[str, Any] = {}
        if message_id is not None:
            self._note["message_id"] = message_id
        if turn_id is not None:
            self._note["turn"] = turn_id
        self._event_note: dict[str, Any] = self._note
        self._thoughts = 0
        self._last: _Entry | None = None
        self._batch_notes: dict[int, dict[str, Any]] = {}
        self.usage: dict[str, Any] | None = None
        self.stop_reason: str | None = None
        self._ending: asyncio.Future[None] | None = None
        # Batch: the frames yielded while running (no parents), from the encoder.
        self.encoder = TaskUpdateEncoder(task_id) if batch else None
        self._on_event = self._batch_event if batch else self._stream_event

    @property
    def finals(self) -> list[dict[str, Any]]:
        """The finished output TaskMessages (see the class docstring)."""
        return [f if type(f) is dict else self._final(f) for f in self._finals]

    @property
    def last_frames(self) -> list[dict[str, Any]]:
        """The TaskMessageUpdate frames of the last event (parents filled in when streamed)."""
        frames = self._frames
        if frames is None:
            frames = self._frames = self._build_frames()
        return frames

    def record(self, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
        """``events``, unchanged and undelayed: the writes described above run beside them.

        A ``TurnRun`` comes back as a ``RecordedRun`` that keeps its ``pull``, so a recorded stream
        still sends what is buffered in one write and pays nothing per event for keepalive.
        """
        if _is_run(events):
            return RecordedRun(self, events)
        return self._record_events(events)

    async def _record_events(self, events: AsyncIterator[Event]) -> AsyncIterator[Event]:
        on_event = self._on_event
        try:
            await self.begin()
            async for event in events:
                on_event(event)
                yield event
        finally:
            # Closed early (client gone): finish the recording now, not whenever GC gets to it.
            await self.end(events)

    async def record_frames(
        self, events: AsyncIterator[Event]
    ) -> AsyncGenerator[tuple[Event, list[dict[str, Any]]], None]:
        """Like ``record``, with each event's TaskMessageUpdate frames (parents filled in when
        streamed)."""
        on_event = self.on_event
        try:
            await self.begin()
            async for event in events:
                yield event, on_event(event)
        finally:
            await self.end(events)

    async def begin(self) -> None:
        """Before the first event: the task's clock and the client's new messages (streamed)."""
        if self.batch:
            return
        known = self._known_clock
        self._clock = await self.store.message_clock(self.task_id) if known is None else known
        inbound, self.inbound = self.inbound, []
        for content in inbound:
            stamp = self._stamp()
            self._inbound_rows.append(NewRow(new_id(), _json(content), DONE, stamp, stamp))
        if inbound:
            self._schedule()

    def on_event(self, event: Event) -> list[dict[str, Any]]:
        """One event of the turn: its TaskMessageUpdate frames, tracked for the store."""
        self._on_event(event)
        return self.last_frames

    def _batch_event(self, event: Event) -> None:
        frames = self.encoder.encode(event)  # type: ignore[union-attr]
        self._frames = frames
        if not frames or frames[0]["type"] != "delta":
            self._event_note = self._note_for(event)
        for frame in frames:
            self._collect(frame)

    def _stream_event(self, event: Event) -> None:
        """One event of a streamed turn: tracked for the store, its frames published if anyone
        listens (built later, if asked for, from what this leaves in ``_step``)."""
        action, text = _STREAM_OPS.get(event.__class__) or _stream_op(event)
        entry = None
        if action == _DELTA:
            opened = self._open_messages if text else self._open_thoughts
            entry = opened.get(event.id)  # type: ignore[union-attr]
            if entry is None:  # a delta without its start opens the message itself
                entry = self._open(event, text, opened)
                step = _START_DELTA
            else:
                step = _DELTA_FRAME
            piece = event.delta  # type: ignore[union-attr]
            # Every delta schedules a flush: a message that streams slower than the flush
            # interval is still written at least every interval while it streams.
            if piece:
                entry.pieces.append(piece)
                entry.changes += 1
                if self._writer is None:
                    self._schedule()
        elif action == _START:
            opened = self._open_messages if text else self._open_thoughts
            if event.id in opened:  # type: ignore[union-attr]
                step = _NO_FRAME
            else:
                entry = self._open(event, text, opened)
                step = _START_FRAME
        elif action == _END:
            opened = self._open_messages if text else self._open_thoughts
            entry = opened.pop(event.id, None)  # type: ignore[union-attr]
            if entry is None:
                step = _NO_FRAME
            else:
                self._close(entry)
                step = _DONE_FRAME
        else:
            note = self._note_for(event)
            content = None if event.__class__ in _NO_CONTENT else event_content(event)
            if content is None:
                step = _NO_FRAME
            else:
                entry = self._add(content, None, DONE, note)
                self._finals.append(entry)
                step = _FULL_FRAME
        self._step = step
        self._step_entry = entry
        self._step_event = event
        self._frames = None
        if step and self._listened(self.task_id):
            publish = self.pubsub.publish  # type: ignore[union-attr]
            for frame in self.last_frames:
                publish(self.task_id, frame)

    def _open(self, event: Event, text: bool, opened: dict[str, _Entry]) -> _Entry:
        """A streamed message starts (``text``: text, else reasoning)."""
        note = self._note
        if note and not text and (event.__class__ is ThoughtStart or event.__class__ is ThoughtDelta):
            note = {**note, "part_id": event.id}  # type: ignore[union-attr]
        index = self._next_index
        self._next_index = index + 1
        stamp = now_us()  # ``_stamp``
        if stamp <= self._clock:
            stamp = self._clock + MS
        self._clock = stamp
        content = text_content("") if text else reasoning_content([])
        entry = _Entry(index, content, text, IN_PROGRESS, stamp, note)
        self._entries[index] = opened[event.id] = self._last = entry  # type: ignore[union-attr]
        if self._writer is None:
            self._schedule()
        return entry

    def _add(self, content: dict[str, Any], text: bool | None, status: str, note: dict[str, Any]) -> _Entry:
        index = self._next_index
        self._next_index = index + 1
        stamp = now_us()  # ``_stamp``
        if stamp <= self._clock:
            stamp = self._clock + MS
        self._clock = stamp
        entry = self._entries[index] = self._last = _Entry(index, content, text, status, stamp, note)
        if self._writer is None:
            self._schedule()
        return entry

    def _build_frames(self) -> list[dict[str, Any]]:
        """The frames of the last streamed event (``_stream_event``), parents filled in."""
        step, entry = self._step, self._step_entry
        if entry is None or step == _NO_FRAME:
            return []
        index = entry.index
        if step == _DELTA_FRAME:
            return [self._delta_frame(entry, self._started(entry))]
        if step == _DONE_FRAME:
            return [{"type": "done", "index": index, "parent_task_message": self._final(entry)}]
        record = self._started(entry)
        if step == _FULL_FRAME:
            return [{"type": "full", "index": index, "parent_task_message": record, "content": entry.content}]
        start = {"type": "start", "index": index, "parent_task_message": record, "content": record["content"]}
        if step == _START_FRAME:
            return [start]
        # A delta that opened its message went out before the message had its TaskMessage (as
        # ``TaskUpdateEncoder`` builds both frames at once): no parent on it.
        return [start, self._delta_frame(entry, None)]

    def _delta_frame(self, entry: _Entry, parent: dict[str, Any] | None) -> dict[str, Any]:
        piece = self._step_event.delta
        if entry.text:
            delta = {"type": "text", "text_delta": piece}
        else:
            delta = {"type": "reasoning_content", "content_index": 0, "content_delta": piece}
        return {"type": "delta", "index": entry.index, "parent_task_message": parent, "delta": delta}

    def _started(self, entry: _Entry) -> dict[str, Any]:
        """The TaskMessage as the message started (its frames' parent until it ends)."""
        record = entry.record
        if record is None:
            created = to_iso(entry.created_at)
            record = entry.record = {
                "id": entry.id,
                "task_id": self.task_id,
                "content": entry.start_content(),
                "streaming_status": IN_PROGRESS if entry.text is not None else DONE,
                "created_at": created,
                "updated_at": created,
            }
        return record

    def _final(self, entry: _Entry) -> dict[str, Any]:
        """The TaskMessage as the message ended (a whole message's: as it started)."""
        final = entry.final
        if final is None:
            if entry.text is None:
                final = self._started(entry)
            else:
                created = to_iso(entry.created_at)
                final = {
                    "id": entry.id,
                    "task_id": self.task_id,
                    "content": entry.settle(),
                    "streaming_status": DONE,
                    "created_at": created,
                    "updated_at": created
                    if entry.updated_at == entry.created_at
                    else to_iso(entry.updated_at),
                }
            entry.final = final
        return final

    async def end(self, events: AsyncIterator[Event]) -> None:
        """After the last event, or when the stream is closed early: close ``events`` and store
        the rest. Shielded: a cancelled stream (client gone) must still leave the turn stored."""
        self._mark_ending()
        loop = asyncio.get_running_loop()
        closing = loop.create_task(self._finish(events))
        _closing.add(closing)
        # What ``asyncio.shield`` does, with less: cancelling this await leaves ``closing`` running.
        waiter = loop.create_future()
        closing.add_done_callback(partial(_closed, waiter))
        await waiter

    def _mark_ending(self) -> None:
        if self._ending is None and not self.batch:
            self._ending = asyncio.get_running_loop().create_future()
            _ending.setdefault(self.task_id, set()).add(self._ending)

    def _ended(self) -> None:
        ending, self._ending = self._ending, None
        if ending is None:
            return
        ending.set_result(None)
        pending = _ending.get(self.task_id)
        if pending is not None:
            pending.discard(ending)
            if not pending:
                del _ending[self.task_id]

    def _note_for(self, event: Event) -> dict[str, Any]:
        """The annotation of the content(s) ``event`` starts; also notes usage and stop reason.
        A recorder told neither message nor turn (a library caller's) annotates nothing."""
        cls = event.__class__
        if cls is Done or cls is ErrorEvent:
            self._mark_ending()
        if not self._note:
            return self._note
        if cls is ThoughtStart or cls is ThoughtDelta:  # a delta here opened its part itself
            return {**self._note, "part_id": event.id}  # type: ignore[union-attr]
        if cls is Thought:
            # The UI Message Stream's id for a one-piece thought (``UIStreamEncoder._thought``).
            self._thoughts += 1
            return {**self._note, "part_id": f"reasoning-{self._thoughts}"}
        if cls is DataEvent:
            extra: dict[str, Any] = {}
            if wraps_data(DataBlock(event.data, event.name)):  # type: ignore[union-attr]
                extra["wrapped"] = True
            if event.transient:  # type: ignore[union-attr]
                extra["transient"] = True
            return {**self._note, **extra} if extra else self._note
        if cls is ErrorEvent and event.detail is not None:  # type: ignore[union-attr]
            return {**self._note, "error_detail": event.detail}  # type: ignore[union-attr]
        if (cls is ToolCall or cls is ToolResult) and event.render is not None:  # type: ignore[union-attr]
            return {**self._note, "render": event.render}  # type: ignore[union-attr]
        if cls is Usage:
            usage = {
                "input": event.input,  # type: ignore[union-attr]
                "output": event.output,  # type: ignore[union-attr]
                "total": event.total,  # type: ignore[union-attr]
                "cost": event.cost,  # type: ignore[union-attr]
            }
            self.usage = {k: v for k, v in usage.items() if v is not None} or None
        elif cls is Done and event.stop_reason is not None:  # type: ignore[union-attr]
            self.stop_reason = event.stop_reason  # type: ignore[union-attr]
        return self._note

    def _turn_end(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.usage:
            out["usage"] = self.usage
        if self.stop_reason is not None:
            out["stop_reason"] = self.stop_reason
        return out

    def _note_turn_end(self) -> None:
        """Usage and stop reason go on the turn's last content (written again if it already was)."""
        last, end = self._last, self._turn_end()
        if last is None or not end or not self._note:
            return
        last.note = {**last.note, **end}
        last.changes += 1
        self._entries.setdefault(last.index, last)

    def _collect(self, frame: dict[str, Any]) -> None:
        kind, index = frame["type"], frame["index"]
        if kind == "delta":
            acc = self._collected.get(index)
            if acc is not None:
                acc.add(frame["delta"])
        elif kind in ("start", "full"):
            self._collected[index] = Accumulator(_copied(frame["content"]))
            self._batch_notes[index] = self._event_note

    def _stamp(self) -> int:
        """A new message's ``created_at``: now, but always after the task's previous message."""
        stamp = now_us()
        if stamp <= self._clock:
            stamp = self._clock + MS
        self._clock = stamp
        return stamp

    def _close(self, entry: _Entry) -> None:
        entry.status = DONE
        now = now_us()
        entry.updated_at = now if now > entry.updated_at else entry.updated_at + 1
        entry.changes += 1
        if entry.pieces:
            entry.settle()
        self._finals.append(entry)

    def _schedule(self) -> None:
        """Arm the next flush: a timer, so a turn that ends before it costs no task and no sleep."""
        if self._writer is None and not (self._closed or self._failing):
            loop = asyncio.get_running_loop()
            delay = self._last_flush + self.flush_interval - time.monotonic()
            if delay > 0:
                self._writer = self._timer = loop.call_later(delay, self._due)
            else:
                self._writer = loop.create_task(self._write_soon())

    def _due(self) -> None:
        self._timer = None
        self._writer = asyncio.get_running_loop().create_task(self._write_soon())

    async def _write_soon(self) -> None:
        """Flush every ``flush_interval`` while anything is pending; never delays the stream."""
        try:
            while not self._closed:
                delay = self._last_flush + self.flush_interval - time.monotonic()
                if delay > 0:
                    self._sleeping = True
                    try:
                        await asyncio.sleep(delay)
                    finally:
                        self._sleeping = False
                if self._closed:
                    return
                try:
                    await self.flush()
                except Exception:
                    # Retried by the turn's last flush; until then the stream goes on undisturbed.
                    self._failing = True
                    log.exception(
                        "could not write task %s's messages; retrying at the turn's end", self.task_id
                    )
                    return
                if not self._inbound_rows and all(e.saved == e.changes for e in self._entries.values()):
                    return
        finally:
            self._writer = None

    async def flush(self) -> None:
        """Write everything pending in one transaction: new messages (the client's first, then the
        turn's, in order) and the content and status of those already written.

        Each content is stored with its annotation (``_json_noted``); the annotation's JSON is made
        once per note (a turn's contents mostly share one) and spliced into the content's."""
        async with self._lock:
            self._last_flush = time.monotonic()
            new, changed, written = list(self._inbound_rows), [], []
            inbound = len(new)
            now = now_us()
            dumps = orjson.dumps
            noted = self._note_json
            for entry in self._entries.values():
                version, saved = entry.changes, entry.saved
                if saved == version:
                    continue
                if entry.status == IN_PROGRESS and (saved or version > 1):
                    entry.updated_at = now if now > entry.updated_at else entry.updated_at + 1
                content = entry.settle() if entry.pieces else entry.content
                note = entry.note
                if not note:
                    text = dumps(content).decode()
                else:
                    body = dumps(content)
                    if len(body) <= 2 or ANNOTATION in content:
                        text = _json_noted(content, note)
                    else:
                        if noted is None or noted[0] is not note:
                            # Holding the note keeps its identity from being reused by another dict.
                            noted = (note, _ANNOTATION_KEY + dumps(note) + b"}")
                        text = (body[:-1] + noted[1]).decode()
                if saved:
                    changed.append(_row(RowChange, (entry.id, text, entry.status, entry.updated_at)))
                else:
                    row = (entry.id, text, entry.status, entry.created_at, entry.updated_at)
                    new.append(_row(NewRow, row))
                written.append((entry, version))
            self._note_json = noted
            if not new and not changed:
                return
            await self.store.write_flush(self.task_id, new, changed)
            del self._inbound_rows[:inbound]
            entries = self._entries
            for entry, version in written:
                entry.saved = version
                if entry.status == DONE and version == entry.changes:
                    del entries[entry.index]

    async def _finish(self, events: AsyncIterator[Event]) -> None:
        try:
            await self._store_rest(events)
        finally:
            self._ended()

    async def _store_rest(self, events: AsyncIterator[Event]) -> None:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            try:
                await aclose()
            except Exception:
                log.exception("closing a turn's events failed")
        if self.batch:
            await self._store_batch()
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
            self._writer = self._timer = None
        elif self._writer is not None and self._sleeping:
            self._writer.cancel()
        cut = [e for e in self._entries.values() if e.status == IN_PROGRESS]
        for entry in cut:
            self._close(entry)
        self._note_turn_end()
        # Retried while the store is briefly away; given up, ``TurnNotStored`` ends the stream with
        # its format's error frame: the client must not take an unstored turn for a stored one.
        await write_with_retries(self.flush, self.task_id, "the end of a turn")
        if cut and self._listened(self.task_id):
            for entry in cut:
                self.pubsub.publish(  # type: ignore[union-attr]
                    self.task_id,
                    {"type": "done", "index": entry.index, "parent_task_message": self._final(entry)},
                )

    async def _store_batch(self) -> None:
        inbound, self.inbound = self.inbound, []
        indexes = sorted(self._collected)
        notes = [dict(self._batch_notes.get(i) or {}) for i in indexes]
        if notes:
            notes[-1].update(self._turn_end())
        outputs_in = [
            annotated(self._collected[i].settle(), **note) for i, note in zip(indexes, notes, strict=True)
        ]
        contents = [*inbound, *outputs_in]
        self._collected = {}
        if not contents:
            return
        stored = await write_with_retries(
            partial(self.store.create_messages, self.task_id, contents, streaming_status=DONE),
            self.task_id,
            "a batch turn",
        )
        outputs = [public_record(r) for r in stored[len(inbound) :]]
        self._finals.extend(outputs)
        if self._listened(self.task_id):
            for index, record in zip(indexes, outputs, strict=True):
                self.pubsub.publish(  # type: ignore[union-attr]
                    self.task_id,
                    {
                        "type": "full",
                        "index": index,
                        "content": record["content"],
                        "parent_task_message": record,
                    },
                )


class RecordedRun:
    """A ``TurnRun`` seen through a ``TurnRecorder``: the same events, ``pull`` and
    ``stop_reason``, each event tracked by the recorder as it is delivered."""

    __slots__ = ("_begun", "_ended", "_on_event", "_pull", "_recorder", "_run")

    def __init__(self, recorder: TurnRecorder, run: Any) -> None:
        self._recorder = recorder
        self._run = run
        self._pull = run.pull
        self._on_event = recorder._on_event
        self._begun = self._ended = False

    @property
    def stop_reason(self) -> str | None:
        return self._run.stop_reason

    def __aiter__(self) -> RecordedRun:
        return self

    def __anext__(self) -> Any:
        return self.pull(None)

    async def pull(self, timeout: float | None) -> Event | None:
        """As ``TurnRun.pull``; the recording ends when the run does."""
        if not self._begun:
            self._begun = True
            await self._recorder.begin()
        try:
            event = await self._pull(timeout)
        except StopAsyncIteration:
            await self.aclose()
            raise
        if event is not None:
            self._on_event(event)
        return event

    def cancel(self) -> None:
        """As ``TurnRun.cancel``: the agent stops and the stream ends ``cancelled``, recorded."""
        self._run.cancel()

    async def aclose(self) -> None:
        if self._ended:
            return
        self._ended = True
        if not self._begun:
            self._begun = True
            await self._recorder.begin()
        await self._recorder.end(self._run)


def _closed(waiter: asyncio.Future[None], closing: asyncio.Task[None]) -> None:
    _closing.discard(closing)
    exc = None if closing.cancelled() else closing.exception()  # retrieved, as shield does
    if waiter.done():  # the awaiting task was cancelled
        return
    if closing.cancelled():
        waiter.cancel()
    elif exc is not None:
        waiter.set_exception(exc)
    else:
        waiter.set_result(None)


def _is_run(events: Any) -> bool:
    """``isinstance(events, runtime.runner.EventRun)`` without the protocol check's cost (~20 µs
    a call: it looks the protocol's members up anew every time): the same members, tested."""
    return (
        hasattr(events, "pull")
        and hasattr(events, "stop_reason")
        and hasattr(events, "aclose")
        and hasattr(events, "__anext__")
        and hasattr(events, "__aiter__")
    )


def _copied(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars): ``copy.deepcopy`` without its memo,
    several times faster on the small contents every streamed message starts with."""
    kind = type(value)
    if kind is dict:
        return {k: _copied(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if kind is list:
        return [_copied(v) if type(v) in _CONTAINERS else v for v in value]
    return value


_CONTAINERS: Final = frozenset((dict, list))


def _json(content: dict[str, Any]) -> str:
    return orjson.dumps(content).decode()


_ANNOTATION_KEY: Final = b"," + orjson.dumps(ANNOTATION) + b":"
_row: Final = tuple.__new__
"""``NewRow(...)``/``RowChange(...)`` from a tuple of its fields, without the named tuple's
``__new__`` (a Python function) per row."""


def _json_noted(content: dict[str, Any], note: dict[str, Any]) -> str:
    return orjson.dumps({**content, ANNOTATION: note} if note else content).decode()
