"""The TaskMessageUpdate frames of a streamed turn's last event, and the TaskMessages they carry
as parents (mixed into ``TurnRecorder``)."""

from __future__ import annotations

from typing import Any

from turnwire.conversations.recorder_entries import (
    DELTA_FRAME,
    DONE,
    DONE_FRAME,
    FULL_FRAME,
    IN_PROGRESS,
    NO_FRAME,
    START_FRAME,
    Entry,
)
from turnwire.store.clock import to_iso


class RecorderFrames:
    """Frames built only when something reads them, from what ``_stream_event`` left in ``_step``."""

    task_id: str
    _step: int
    _step_entry: Entry | None
    _step_event: Any

    def _build_frames(self) -> list[dict[str, Any]]:
        """The frames of the last streamed event (``_stream_event``), parents filled in."""
        step, entry = self._step, self._step_entry
        if entry is None or step == NO_FRAME:
            return []
        index = entry.index
        if step == DELTA_FRAME:
            return [self._delta_frame(entry, self._started(entry))]
        if step == DONE_FRAME:
            return [{"type": "done", "index": index, "parent_task_message": self._final(entry)}]
        record = self._started(entry)
        if step == FULL_FRAME:
            return [{"type": "full", "index": index, "parent_task_message": record, "content": entry.content}]
        start = {"type": "start", "index": index, "parent_task_message": record, "content": record["content"]}
        if step == START_FRAME:
            return [start]
        # A delta that opened its message went out before the message had its TaskMessage (as
        # ``TaskUpdateEncoder`` builds both frames at once): no parent on it.
        return [start, self._delta_frame(entry, None)]

    def _delta_frame(self, entry: Entry, parent: dict[str, Any] | None) -> dict[str, Any]:
        piece = self._step_event.delta
        if entry.text:
            delta = {"type": "text", "text_delta": piece}
        else:
            delta = {"type": "reasoning_content", "content_index": 0, "content_delta": piece}
        return {"type": "delta", "index": entry.index, "parent_task_message": parent, "delta": delta}

    def _started(self, entry: Entry) -> dict[str, Any]:
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

    def _final(self, entry: Entry) -> dict[str, Any]:
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
