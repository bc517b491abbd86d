"""How a ``TurnRecorder`` writes a turn to the store: timed flushes while it streams, the last
write when it ends, or one write at the end of a batch turn (see ``recording``'s docstring)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from typing import Any, Final

import orjson

from turnwire.conversations.accumulator import Accumulator
from turnwire.conversations.pubsub import PubSub
from turnwire.conversations.recorder_entries import DONE, IN_PROGRESS, Entry
from turnwire.model import Event
from turnwire.store.base import NewRow, RowChange, Store
from turnwire.store.clock import now_us
from turnwire.store.open_turns import close_turn, hold, open_turn, release

log = logging.getLogger("turnwire.conversations.recording")


class RecorderWrites:
    """The store side of ``TurnRecorder`` (mixed into it)."""

    store: Store
    task_id: str
    pubsub: PubSub | None
    batch: bool
    inbound: list[dict[str, Any]]
    flush_interval: float
    _entries: dict[int, Entry]
    _inbound_rows: list[NewRow]
    _note_json: tuple[dict[str, Any], str] | None
    _inbound_notes: list[dict[str, Any] | None]
    _parent: str | None
    _collected: dict[int, Accumulator]
    _batch_notes: dict[int, dict[str, Any]]
    _finals: list[Any]
    _lock: asyncio.Lock
    _writer: Any
    _timer: asyncio.TimerHandle | None
    _sleeping: bool
    _closed: bool
    _failing: bool
    _last_flush: float
    _turn_mark: str | None
    _marking: asyncio.Future[str | None] | None

    _listened: Callable[[str], bool]
    """Whether a frame published now on a topic would reach anyone (set by TurnRecorder)."""

    def _close(self, entry: Entry) -> None:
        raise NotImplementedError  # provided by TurnRecorder

    def _final(self, entry: Entry) -> dict[str, Any]:
        raise NotImplementedError  # provided by TurnRecorder

    def _note_turn_end(self) -> None:
        raise NotImplementedError  # provided by TurnRecorder

    def _turn_end(self) -> dict[str, Any]:
        raise NotImplementedError  # provided by TurnRecorder

    def _ended(self) -> None:
        raise NotImplementedError  # provided by TurnRecorder

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
                if self._turn_mark is None:
                    await self._mark_open()
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

    async def _mark_open(self) -> None:
        """Register the turn as open (``store.open_turns``): it now outlives one flush interval, and
        a kill between two of its messages must leave a trace."""
        self._turn_mark = ""
        hold(self.task_id)  # until the turn is finished (``_finish``): its rows are not orphans
        # A task of its own: the turn's end waits for it (``_store_rest``), so a mark written
        # after the end was stored cannot outlive the turn.
        self._marking = asyncio.ensure_future(open_turn(self.store, self.task_id))
        try:
            self._turn_mark = await asyncio.shield(self._marking) or ""
        except Exception:
            log.exception("could not mark the turn on task %s as open", self.task_id)

    async def flush(self) -> None:
        """Write everything pending in one transaction: new messages (the client's first, then the
        turn's, in order) and the content and status of those already written.

        Each content's note goes beside it (``NewRow.note``); its JSON is made once per note (a
        turn's contents mostly share one)."""
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
                text = dumps(content).decode()
                note = entry.note
                if not note:
                    note_text = None
                else:
                    if noted is None or noted[0] is not note:
                        # Holding the note keeps its identity from being reused by another dict.
                        noted = (note, dumps(note).decode())
                    note_text = noted[1]
                if saved:
                    changed.append(
                        _row(RowChange, (entry.id, text, entry.status, entry.updated_at, note_text))
                    )
                else:
                    row = (
                        entry.id,
                        text,
                        entry.status,
                        entry.created_at,
                        entry.updated_at,
                        note_text,
                        entry.parent_id,
                    )
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
            if self._turn_mark is not None:
                release(self.task_id)
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
        try:
            await self.flush()
        except Exception:
            log.exception("could not store the end of a turn on task %s", self.task_id)
            return  # its open-turn mark stays: if this process dies, the turn is marked interrupted
        if self._marking is not None:
            try:
                mark = await self._marking
                if mark:
                    await close_turn(self.store, mark)
            except Exception:
                log.exception("could not clear the open-turn mark of task %s", self.task_id)
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
        contents = [*inbound, *(self._collected[i].settle() for i in indexes)]
        self._collected = {}
        if not contents:
            return
        stored = await self.store.create_messages(
            self.task_id,
            contents,
            streaming_status=DONE,
            notes=[*self._inbound_notes, *notes],
            parent_id=self._parent,
        )
        outputs = stored[len(inbound) :]
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


_row: Final = tuple.__new__
"""``NewRow(...)``/``RowChange(...)`` from a tuple of its fields, without the named tuple's
``__new__`` (a Python function) per row."""
