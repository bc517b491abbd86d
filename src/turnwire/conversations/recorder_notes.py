"""What a recorder notes beside each stored content: the message and turn it is part of, a part's
id, a data block's shape, the sub-agent invocation it was written in (``agent``, named as
``turnwire.subagents`` names it), the sources streamed next to it, and the turn's usage, stop
reason (``formats.agentex.annotations``) and the agent's state at its end (``state``: its last
``state_snapshot`` with the ``state_delta``s after it applied, as an AG-UI client holds it);
mixed into ``TurnRecorder``.

A source, or a custom event, is no content of its own (Agentex has no content for either): it is
an *aside*, noted on the turn's content the stream sent last before it (``sources_after``), or,
when the turn has sent none yet, on its next one (``sources_before``), so a reader puts it back
where its stream did. Both kinds share the lists so their stream order stays."""

from __future__ import annotations

import contextlib
from typing import Any

from turnwire.conversations.accumulator import Accumulator
from turnwire.conversations.recorder_entries import Entry
from turnwire.formats.agentex.messages import wraps_data
from turnwire.formats.agentex.sources import custom_data, source_data
from turnwire.json_patch import PatchError, apply_patch
from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataBlock,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    Thought,
    ThoughtDelta,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)
from turnwire.subagents import OpenSubagents

_NO_STATE: Any = object()


class RecorderNotes:
    """The notes of a turn's contents, and its usage, stop reason and state once known."""

    _state: Any = _NO_STATE

    _note: dict[str, Any]
    _subagents: OpenSubagents
    _thoughts: int
    _last: Entry | None
    _entries: dict[int, Entry]
    usage: dict[str, Any] | None
    stop_reason: str | None
    batch: bool
    _collected: dict[int, Accumulator]
    _batch_notes: dict[int, dict[str, Any]]
    _early_asides: list[dict[str, Any]]
    """Asides streamed before the turn's first content, for its note (``sources_before``)."""

    def _mark_ending(self) -> None:
        raise NotImplementedError  # provided by TurnRecorder

    def _note_for(self, event: Event) -> dict[str, Any]:
        """The note of the content(s) ``event`` starts; also notes usage and stop reason.
        A recorder told neither message nor turn (a library caller's) notes nothing."""
        cls = event.__class__
        if cls is Done or cls is ErrorEvent:
            self._mark_ending()
        elif cls is AgentStart or cls is AgentEnd:
            self._enter_or_leave(event)  # type: ignore[arg-type]
        elif cls is StateSnapshot:
            self._state = event.state  # type: ignore[union-attr]
        elif cls is StateDelta and self._state is not _NO_STATE:
            # The client keeps its state when a patch fails to apply; so does the note.
            with contextlib.suppress(PatchError):
                self._state = apply_patch(self._state, event.delta)  # type: ignore[union-attr]
        if not self._note:
            return self._note
        if cls is SourceUrl or cls is SourceDocument:
            self._note_aside(source_data(event))  # type: ignore[arg-type]
            return self._note
        if cls is CustomEvent:
            self._note_aside(custom_data(event))  # type: ignore[arg-type]
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

    def _note_aside(self, aside: dict[str, Any]) -> None:
        """An aside goes on the note of the turn's last content so far (written again if it
        already was), else waits for its first (``_with_asides``)."""
        if self.batch:
            if not self._collected:
                self._early_asides.append(aside)
                return
            index = max(self._collected)
            note = self._batch_notes.get(index) or {}
            self._batch_notes[index] = {**note, "sources_after": [*note.get("sources_after", ()), aside]}
            return
        last = self._last
        if last is None:
            self._early_asides.append(aside)
            return
        last.note = {**last.note, "sources_after": [*last.note.get("sources_after", ()), aside]}
        last.changes += 1
        self._entries.setdefault(last.index, last)

    def _with_asides(self, note: dict[str, Any]) -> dict[str, Any]:
        """The note of the turn's first content, with the asides streamed before it."""
        early = self._early_asides
        if not early:
            return note
        self._early_asides = []
        return {**note, "sources_before": early}

    def _enter_or_leave(self, event: AgentStart | AgentEnd) -> None:
        """A sub-agent starts or ends: the contents written from now on note the invocation
        they belong to (none: the agent itself)."""
        if isinstance(event, AgentStart):
            self._subagents.start(event)
        else:
            self._subagents.end(event)
        if not self._note:
            return
        note = {k: v for k, v in self._note.items() if k != "agent"}
        current = self._subagents.current
        if current is not None:
            note["agent"] = current
        self._note = note

    def _turn_end(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.usage:
            out["usage"] = self.usage
        if self.stop_reason is not None:
            out["stop_reason"] = self.stop_reason
        if self._state is not _NO_STATE:
            out["state"] = self._state
        return out

    def _note_turn_end(self) -> None:
        """Usage and stop reason go on the turn's last content (written again if it already was)."""
        last, end = self._last, self._turn_end()
        if last is None or not end or not self._note:
            return
        last.note = {**last.note, **end}
        last.changes += 1
        self._entries.setdefault(last.index, last)
