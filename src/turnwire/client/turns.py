"""What a turn knows once (part of) its answer is in: shared by the sync and async turn objects."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from turnwire.client.conversation import Conversation, approvals
from turnwire.model import Done, Event, InteractionKind, InteractionRequest, Message, StopReason, Turn


class TurnState:
    """Events received so far, and after the end, the folded turn and what it waits for."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        self.events: list[Event] = []
        self.result: Turn | None = None
        self.pending: list[InteractionRequest] = []

    def finish_stream(self, message_id: str | None, cancelled: bool) -> Turn:
        if self.result is None:
            events = self.events
            if cancelled and not any(isinstance(e, Done) for e in events):
                events = [*events, Done(stop_reason=StopReason.CANCELLED)]
            self.result = self.conversation.absorb_events(events, message_id)
            if self.result.stop_reason == StopReason.PAUSED:
                self.pending = [e for e in self.events if isinstance(e, InteractionRequest)]
        return self.result

    def finish_batch(self, outputs: Mapping[str, Any]) -> Turn:
        self.result, pending = self.conversation.absorb_batch(outputs)
        self.pending = pending if self.result.stop_reason == StopReason.PAUSED else []
        return self.result

    def decision_messages(self, decisions: Mapping[str, bool], reason: str | None) -> list[Message]:
        waiting = {r.id: r for r in approvals(self.pending)}
        if not waiting:
            raise ValueError("this turn is not waiting for an approval")
        decided = {}
        for request_id, approved in decisions.items():
            if request_id not in waiting:
                raise ValueError(f"no pending approval {request_id!r}; pending: {', '.join(waiting)}")
            decided[request_id] = (waiting[request_id], approved, reason)
        return self.conversation.decisions(decided)

    def one_decision(self, request: str | InteractionRequest | None, approved: bool) -> dict[str, bool]:
        """``{request id: approved}``; ``None`` means every pending approval."""
        if request is not None:
            return {request.id if isinstance(request, InteractionRequest) else request: approved}
        return {r.id: approved for r in approvals(self.pending)}

    def check_input_request(self) -> None:
        if not any(r.kind == InteractionKind.USER_INPUT for r in self.pending):
            raise ValueError("this turn is not waiting for user input")
