"""Agenta event frames as a stream: one frame per event, nothing around them."""

from __future__ import annotations

from turnwire.formats import Frame, TurnInfo
from turnwire.formats.agenta.frames import event_to_frame
from turnwire.model import Done, ErrorEvent, Event

FAILURE_CODE = "agent_run_failed"


class AgentaFrames:
    """The stream encoder of the Agenta format (``formats.StreamEncoder``)."""

    __slots__ = ()

    def start(self) -> list[Frame]:
        return []

    def encode(self, event: Event) -> list[Frame]:
        return [event_to_frame(event)]

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Frame]:
        """Nothing after a normal run; after a broken one an ``error`` frame and a terminal ``done``."""
        if error is None:
            return []
        return [
            event_to_frame(ErrorEvent(message=error, code=FAILURE_CODE)),
            event_to_frame(Done(stop_reason="error")),
        ]


def stream_encoder(info: TurnInfo) -> AgentaFrames:
    return AgentaFrames()
