"""The ordering rules that make any agent's output a stream every client accepts.

An agent's events go through ``TurnGuard.accept`` one by one; ``TurnGuard.finish`` gives the tail
that closes the turn. The rules:

- a delta for a part that is not open opens it first (the text is kept, never dropped);
- an end for a part that is not open is dropped; a second start for an open id closes it first;
- every part still open when the turn ends gets its ``*_end`` before the terminal ``Done``;
- the agent's own ``Done`` events are not forwarded: the last non-null stop reason is kept and the
  turn ends with exactly one ``Done``, always the last event, with a non-null stop reason.

Message and thought ids are separate namespaces (a client tracks text and reasoning parts apart).
"""

from __future__ import annotations

from typing import Final

from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageStart,
    StopReason,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
)

_MESSAGE: Final = 0
_THOUGHT: Final = 1

# By namespace: the start and end events of a part.
_STARTS: Final = (MessageStart, ThoughtStart)
_ENDS: Final = (MessageEnd, ThoughtEnd)


class TurnGuard:
    """Ordering state of one turn. Not thread-safe; one guard per turn."""

    __slots__ = ("_open", "errored", "paused", "stop_reason", "trace_id")

    def __init__(self, trace_id: str | None) -> None:
        self.trace_id = trace_id
        self._open: dict[tuple[int, str], None] = {}  # insertion-ordered set of open parts
        self.stop_reason: str | None = None
        self.paused = False
        self.errored = False

    def accept(self, event: Event) -> Event | tuple[Event, ...] | None:
        """What to emit for one (already validated) agent event: the event itself, a tuple of
        events (repairs first), or ``None`` to emit nothing."""
        # ``type(event) is C`` tests the exact class (events are never subclassed) as cheaply as a
        # lookup, and narrows ``event`` for the type checker. Deltas first: most events are one.
        kind = type(event)
        if type(event) is MessageDelta or type(event) is ThoughtDelta:
            key = (_MESSAGE if kind is MessageDelta else _THOUGHT, event.id)
            if key in self._open:  # a delta of an open part
                return event
            self._open[key] = None
            return (_STARTS[key[0]](key[1]), event)
        if type(event) is MessageStart or type(event) is ThoughtStart:
            key = (_MESSAGE if kind is MessageStart else _THOUGHT, event.id)
            if key in self._open:
                return (_ENDS[key[0]](event.id), event)
            self._open[key] = None
            return event
        if type(event) is MessageEnd or type(event) is ThoughtEnd:
            key = (_MESSAGE if kind is MessageEnd else _THOUGHT, event.id)
            if key in self._open:
                del self._open[key]
                return event
            return None
        if type(event) is Done:
            reason = event.stop_reason
            if reason is not None and reason.strip():
                self.stop_reason = reason
            return None
        if kind is InteractionRequest:
            self.paused = True
        elif kind is ErrorEvent:
            self.errored = True
        return event

    def close_open(self) -> list[Event]:
        """``*_end`` events for every open part, in the order the parts were opened."""
        ends: list[Event] = [_ENDS[namespace](part_id) for namespace, part_id in self._open]
        self._open.clear()
        return ends

    def finish(self, forced: str | None = None, error: ErrorEvent | None = None) -> list[Event]:
        """The tail of the turn: open parts closed, then ``error`` if given, then the one ``Done``.

        Stop reason: ``forced`` if given; else the agent's last non-null one; else ``paused``
        after an interaction request, ``error`` after an error event, ``end_turn`` otherwise.
        """
        tail = self.close_open()
        if error is not None:
            tail.append(error)
            self.errored = True
        reason = forced or self.stop_reason
        if reason is None:
            if self.paused:
                reason = StopReason.PAUSED
            elif self.errored:
                reason = StopReason.ERROR
            else:
                reason = StopReason.END_TURN
        self.stop_reason = reason
        tail.append(Done(stop_reason=reason, trace_id=self.trace_id))
        return tail
