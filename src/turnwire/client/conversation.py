"""One conversation as a client holds it: the history it resends, the requests it builds, the
answers it folds back in. No I/O; ``sync.Client`` and ``aio.AsyncClient`` do the HTTP.

The client keeps the whole history itself and sends it on every turn (``x-ag-history: client``,
the protocol's default), so it works against any server that speaks the Agenta invoke protocol,
stored or not. Approvals are answered the way the protocol says: the paused turn's messages are
sent back with a decision ``{"approved", "interactionToken"}`` on the tool call.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from turnwire.fold import fold
from turnwire.formats import agenta, vercel
from turnwire.model import (
    Event,
    InteractionKind,
    InteractionRequest,
    Message,
    Role,
    StopReason,
    TextBlock,
    ToolResultBlock,
    Turn,
)

Format = Literal["agenta", "vercel"]
Transport = Literal["sse", "ndjson", "batch"]

ACCEPT: Final[dict[str, str]] = {
    "sse": "text/event-stream",
    "ndjson": "application/x-ndjson",
    "batch": "application/json",
}


@dataclass(frozen=True)
class Request:
    """One HTTP request of a turn."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Conversation:
    """The history of one session and how to talk about it in ``format``."""

    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    agent: str | None = None
    format: Format = "agenta"
    history: list[Message] = field(default_factory=list)
    parameters: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.format not in ("agenta", "vercel"):
            raise ValueError(f"format must be 'agenta' or 'vercel', not {self.format!r}")

    def checkpoint(self) -> list[Message]:
        """A copy of the history to ``rollback`` to when a turn's request is refused or fails."""
        return [Message(m.role, list(m.content), m.id, m.display_content, m.metadata) for m in self.history]

    def rollback(self, checkpoint: list[Message]) -> None:
        self.history = checkpoint

    # ------------------------------------------------------------------ requests

    def request(self, new: Sequence[Message], transport: Transport = "sse") -> Request:
        """The request of a turn that adds ``new`` to the history (which it also records)."""
        self.history.extend(new)
        if self.format == "vercel":
            if transport == "ndjson":
                raise ValueError("the Vercel format has no NDJSON stream; use sse or batch")
            return self._vercel_request(transport)
        prefix = f"/agents/{self.agent}" if self.agent else ""
        body: dict[str, Any] = {
            "session_id": self.session_id,
            "data": {"inputs": {"messages": agenta.render_messages(self.history)}},
        }
        if self.parameters is not None:
            body["data"]["parameters"] = self.parameters
        headers = {"accept": ACCEPT[transport], "content-type": "application/json"}
        return Request(f"{prefix}/invoke", headers, body)

    def _vercel_request(self, transport: Transport) -> Request:
        prefix = f"/agents/{self.agent}" if self.agent else ""
        last = self.history[-1] if self.history else None
        continuation = last.id if last is not None and last.role == Role.ASSISTANT else None
        ui = vercel.render_messages(self.history, continuation_id=continuation)
        headers = {"content-type": "application/json", "x-ag-messages-format": "vercel"}
        if transport == "batch":  # /chat always streams; a batch Vercel turn is /invoke's
            headers["accept"] = ACCEPT["batch"]
            body: dict[str, Any] = {"session_id": self.session_id, "data": {"inputs": {"messages": ui}}}
            if self.parameters is not None:
                body["data"]["parameters"] = self.parameters
            return Request(f"{prefix}/invoke", headers, body)
        headers["accept"] = ACCEPT["sse"]
        body = {"id": self.session_id, "trigger": "submit-message", "messages": ui}
        if continuation:
            body["messageId"] = continuation
        return Request(f"{prefix}/chat", headers, body)

    # ------------------------------------------------------------------ answers

    def absorb_events(self, events: Sequence[Event], message_id: str | None = None) -> Turn:
        """Fold a streamed turn and add its messages to the history; the folded turn."""
        turn = fold(events, full=True)
        self._absorb(turn.messages, message_id)
        return turn

    def absorb_batch(self, outputs: Mapping[str, Any]) -> tuple[Turn, list[InteractionRequest]]:
        """A batch response's ``data.outputs`` → (the turn, every pending request); the history grows."""
        parse = vercel.parse_messages if self.format == "vercel" else agenta.parse_messages
        messages = parse(outputs.get("messages") or [])
        pending = [
            InteractionRequest(str(p.get("id")), str(p.get("kind")), p.get("payload"))
            for p in outputs.get("pending_interactions") or [outputs.get("pending_interaction") or {}]
            if isinstance(p, dict) and p.get("id")
        ]
        stop = outputs.get("stop_reason")
        turn = Turn(messages, stop, pending[-1] if pending and stop == StopReason.PAUSED else None)
        message_id = messages[-1].id if self.format == "vercel" and messages else None
        last = self.history[-1] if self.history else None
        if message_id and last is not None and last.id == message_id:
            self.history.pop()  # a Vercel batch answer is the whole (continued) assistant message
        self._absorb(messages, message_id)
        return turn, pending

    def _absorb(self, messages: Sequence[Message], message_id: str | None) -> None:
        if self.format != "vercel":
            self.history.extend(messages)
            return
        # A useChat client holds one assistant message per answer, under the stream's messageId; a
        # continuation (same id) grows that message.
        blocks = [b for m in messages for b in m.content]
        last = self.history[-1] if self.history else None
        if last is not None and last.role == Role.ASSISTANT and (message_id is None or last.id == message_id):
            last.content.extend(blocks)
        elif blocks or message_id:
            self.history.append(Message(Role.ASSISTANT, blocks, id=message_id))

    # ------------------------------------------------------------------ what the user says next

    def user(self, text: str) -> list[Message]:
        return [Message(Role.USER, [TextBlock(text)])]

    def decisions(self, decided: Mapping[str, tuple[InteractionRequest, bool, str | None]]) -> list[Message]:
        """Decision messages for approval requests: ``{request id: (request, approved, reason)}``.

        Agenta gets one tool message per decision; Vercel puts the decisions on the paused assistant
        message (the tool parts become ``approval-responded``), so nothing new is appended."""
        blocks = []
        for request, approved, reason in decided.values():
            payload = request.payload if isinstance(request.payload, dict) else {}
            output: dict[str, Any] = {"approved": approved, "interactionToken": request.id}
            if reason:
                output["reason"] = reason
            blocks.append(
                ToolResultBlock(
                    id=str(payload.get("toolCallId") or ""), name=payload.get("toolName"), output=output
                )
            )
        if self.format == "vercel" and self.history and self.history[-1].role == Role.ASSISTANT:
            self.history[-1].content.extend(blocks)
            return []
        return [Message(Role.TOOL, [b]) for b in blocks]


def approvals(requests: Iterable[InteractionRequest]) -> list[InteractionRequest]:
    return [r for r in requests if r.kind == InteractionKind.USER_APPROVAL]


def tool_call_of(request: InteractionRequest) -> tuple[str, Any]:
    """(tool name, arguments) an approval request is about, for showing it to a person."""
    payload = request.payload if isinstance(request.payload, dict) else {}
    call = given if isinstance(given := payload.get("toolCall"), dict) else {}
    name = payload.get("toolName") or call.get("name") or call.get("title") or request.kind
    args = (
        call.get("rawInput") if call.get("rawInput") is not None else call.get("input", payload.get("input"))
    )
    return str(name), args


__all__ = ["ACCEPT", "Conversation", "Format", "Request", "Transport", "approvals", "tool_call_of"]
