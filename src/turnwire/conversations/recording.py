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
the TaskMessage as stored, id and ``created_at`` included, even before its row exists. Each
message it creates follows the one before in its branch (``store.branches``): the first follows
the message ``Conversation.take_inbound`` names (the branch's last, or after an edit the last one
kept), else the task's last. Its note (message id, turn, usage, ...) goes beside its content.

The parts: ``recorder_entries`` (a streamed message's state, what each event does),
``recorder_frames`` (frames and their parents), ``recorder_notes``, ``recorder_writes`` (flushes,
the last write), ``recorded_run``, ``accumulator``, ``turn_endings``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from functools import partial
from typing import Any, Final, cast

import orjson

from turnwire.conversations.accumulator import Accumulator, apply_delta, copied
from turnwire.conversations.pubsub import PubSub
from turnwire.conversations.recorded_run import RecordedRun, is_run
from turnwire.conversations.recorder_entries import (
    DELTA,
    DELTA_FRAME,
    DONE,
    DONE_FRAME,
    END,
    FULL_FRAME,
    IN_PROGRESS,
    NO_CONTENT,
    NO_FRAME,
    START,
    START_DELTA,
    START_FRAME,
    STREAM_OPS,
    Entry,
    stream_op,
)
from turnwire.conversations.recorder_frames import RecorderFrames
from turnwire.conversations.recorder_notes import RecorderNotes
from turnwire.conversations.recorder_writes import RecorderWrites
from turnwire.conversations.turn_endings import begin_ending, end_ending, settled
from turnwire.formats.agentex import TaskUpdateEncoder, event_content
from turnwire.formats.agentex.updates import reasoning_content, text_content
from turnwire.model import (
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
)
from turnwire.runtime.live import turn_ending
from turnwire.store.base import LAST, NewRow, Store
from turnwire.store.clock import MS, new_id, now_us
from turnwire.subagents import OpenSubagents

FLUSH_INTERVAL: Final = 0.1
_Streamed = MessageStart | MessageDelta | MessageEnd | ThoughtStart | ThoughtDelta | ThoughtEnd
_Delta = MessageDelta | ThoughtDelta
_KEYED: Final = frozenset((START, DELTA, END))
_closing: set[asyncio.Task[None]] = set()


def _never(topic: str) -> bool:
    return False


def _always(topic: str) -> bool:
    return True


class TurnRecorder(RecorderFrames, RecorderNotes, RecorderWrites):
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
        # What ``Conversation.take_inbound`` knows beside the contents: their notes, and the message
        # the first of them (else the turn's first output) follows (``LAST``: the task's last).
        notes = getattr(inbound, "notes", None)
        self._inbound_notes: list[dict[str, Any] | None] = (
            list(notes) if notes else [None] * len(self.inbound)
        )
        self._parent: str | None = getattr(inbound, "parent_id", LAST)
        self._tip = self._parent  # the parent of the next message this recorder creates
        self.batch = batch
        self.flush_interval = flush_interval
        # ``listened(topic)``: whether a frame published now would reach anyone. A pub/sub that
        # cannot tell (another process may read, as through Redis) gets every frame.
        self._listened = _never if pubsub is None else getattr(pubsub, "listened", _always)
        self._finals: list[Any] = []  # records (batch) or finished entries (streamed)
        self._frames: list[dict[str, Any]] | None = []
        self._step = NO_FRAME
        self._step_entry: Entry | None = None
        self._step_event: Any = None
        self._collected: dict[int, Accumulator] = {}  # batch: every output content, by index
        self._entries: dict[int, Entry] = {}  # streamed: open or not yet written, by index
        self._open_messages: dict[str, Entry] = {}  # streamed, by event id
        self._open_thoughts: dict[str, Entry] = {}
        self._next_index = 0
        self._inbound_rows: list[NewRow] = []
        self._note_json: tuple[dict[str, Any], str] | None = None
        self._clock = 0
        self._known_clock = clock
        self._lock = asyncio.Lock()
        self._writer: Any = None  # the timer of the next flush, or the task writing
        self._timer: asyncio.TimerHandle | None = None
        self._sleeping = self._closed = self._failing = False
        self._last_flush = time.monotonic()
        self._note: dict[str, Any] = {}
        self._subagents = OpenSubagents()
        if message_id is not None:
            self._note["message_id"] = message_id
        if turn_id is not None:
            self._note["turn"] = turn_id
        self.turn_id = turn_id
        self._turn_mark: str | None = None  # its ``open_turns`` row ("": none), once it has one
        self._marking: asyncio.Future[str | None] | None = None
        self._event_note: dict[str, Any] = self._note
        self._thoughts = 0
        self._last: Entry | None = None
        self._batch_notes: dict[int, dict[str, Any]] = {}
        self._early_asides: list[dict[str, Any]] = []
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
        if is_run(events):
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
        for content, note in zip(inbound, self._inbound_notes, strict=True):
            stamp = self._stamp()
            row = NewRow(
                new_id(), _json(content), DONE, stamp, stamp, _json(note) if note else None, self._tip
            )
            self._inbound_rows.append(row)
            self._tip = row.id
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
        action, text = STREAM_OPS.get(event.__class__) or stream_op(event)
        # DELTA, START and END come only with the six streamed classes, each with a str id.
        key = cast(_Streamed, event).id if action in _KEYED else ""
        entry = None
        if action == DELTA:
            opened = self._open_messages if text else self._open_thoughts
            entry = opened.get(key)
            if entry is None:  # a delta without its start opens the message itself
                entry = self._open(event, text, opened)
                step = START_DELTA
            else:
                step = DELTA_FRAME
            piece = cast(_Delta, event).delta
            # Every delta schedules a flush: a message that streams slower than the flush
            # interval is still written at least every interval while it streams.
            if piece:
                entry.pieces.append(piece)
                entry.changes += 1
                if self._writer is None:
                    self._schedule()
        elif action == START:
            opened = self._open_messages if text else self._open_thoughts
            if key in opened:
                step = NO_FRAME
            else:
                entry = self._open(event, text, opened)
                step = START_FRAME
        elif action == END:
            opened = self._open_messages if text else self._open_thoughts
            entry = opened.pop(key, None)
            if entry is None:
                step = NO_FRAME
            else:
                self._close(entry)
                step = DONE_FRAME
        else:
            note = self._note_for(event)
            content = None if event.__class__ in NO_CONTENT else event_content(event)
            if content is None:
                step = NO_FRAME
            else:
                entry = self._add(content, None, DONE, note)
                self._finals.append(entry)
                step = FULL_FRAME
        self._step = step
        self._step_entry = entry
        self._step_event = event
        self._frames = None
        if step and self._listened(self.task_id):
            publish = self.pubsub.publish  # type: ignore[union-attr]
            for frame in self.last_frames:
                publish(self.task_id, frame)

    def _open(self, event: Event, text: bool, opened: dict[str, Entry]) -> Entry:
        """A streamed message starts (``text``: text, else reasoning)."""
        note = self._note
        if note and not text and (event.__class__ is ThoughtStart or event.__class__ is ThoughtDelta):
            note = {**note, "part_id": cast(_Streamed, event).id}
        if self._early_asides:
            note = self._with_asides(note)
        index = self._next_index
        self._next_index = index + 1
        stamp = now_us()  # ``_stamp``
        if stamp <= self._clock:
            stamp = self._clock + MS
        self._clock = stamp
        content = text_content("") if text else reasoning_content([])
        entry = Entry(index, content, text, IN_PROGRESS, stamp, note, self._tip)
        self._tip = entry.id
        self._entries[index] = opened[cast(_Streamed, event).id] = self._last = entry
        if self._writer is None:
            self._schedule()
        return entry

    def _add(self, content: dict[str, Any], text: bool | None, status: str, note: dict[str, Any]) -> Entry:
        if self._early_asides:
            note = self._with_asides(note)
        index = self._next_index
        self._next_index = index + 1
        stamp = now_us()  # ``_stamp``
        if stamp <= self._clock:
            stamp = self._clock + MS
        self._clock = stamp
        entry = Entry(index, content, text, status, stamp, note, self._tip)
        self._entries[index] = self._last = entry
        self._tip = entry.id
        if self._writer is None:
            self._schedule()
        return entry

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
            self._ending = begin_ending(self.task_id)
            turn_ending(self.turn_id)  # and to the other workers, through the live-turn registry

    def _ended(self) -> None:
        ending, self._ending = self._ending, None
        if ending is not None:
            end_ending(self.task_id, ending)

    def _collect(self, frame: dict[str, Any]) -> None:
        kind, index = frame["type"], frame["index"]
        if kind == "delta":
            acc = self._collected.get(index)
            if acc is not None:
                acc.add(frame["delta"])
        elif kind in ("start", "full"):
            self._collected[index] = Accumulator(copied(frame["content"]))
            note = self._event_note
            self._batch_notes[index] = self._with_asides(note) if self._early_asides else note

    def _stamp(self) -> int:
        """A new message's ``created_at``: now, but always after the task's previous message."""
        stamp = now_us()
        if stamp <= self._clock:
            stamp = self._clock + MS
        self._clock = stamp
        return stamp

    def _close(self, entry: Entry) -> None:
        entry.status = DONE
        now = now_us()
        entry.updated_at = now if now > entry.updated_at else entry.updated_at + 1
        entry.changes += 1
        if entry.pieces:
            entry.settle()
        self._finals.append(entry)


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


def _json(content: dict[str, Any]) -> str:
    return orjson.dumps(content).decode()


__all__ = ["Accumulator", "RecordedRun", "TurnRecorder", "apply_delta", "settled"]
