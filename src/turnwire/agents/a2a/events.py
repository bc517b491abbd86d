"""A remote A2A agent's stream responses → canonical events (pure: no I/O).

==================================  =============================================================
stream response (v1.0)              canonical events
==================================  =============================================================
``task``                            (its id and context are noted)
``artifactUpdate``, text parts      ``MessageStart`` on an artifact's first chunk, a ``MessageDelta``
                                    per text part, ``MessageEnd`` on ``lastChunk`` (or at the end)
``artifactUpdate``, file parts      ``FileEvent`` (a ``raw`` file as a ``data:`` URL)
``artifactUpdate``, data parts      ``DataEvent`` named after the artifact
``statusUpdate`` working message    its tool-call / tool-result parts (turnwire's media types) as
                                    ``ToolCall`` / ``ToolResult``, text as a ``MessageEvent``
final ``statusUpdate``              completed → ``Done("end_turn")``; failed → ``ErrorEvent`` +
                                    ``Done("error")``; canceled → ``Done("cancelled")``; rejected →
                                    ``Done("refusal")``; input-required → one ``InteractionRequest``
                                    per request part (approvals keep the remote's call), else one
                                    ``user_input`` request with the message's text, + ``Done("paused")``
``message`` (no task)               its text as a ``MessageEvent``, ``Done("end_turn")``
==================================  =============================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionKind,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    StopReason,
    ToolCall,
    ToolResult,
)

TOOL_CALL: Final = "application/vnd.turnwire.tool-call+json"
TOOL_RESULT: Final = "application/vnd.turnwire.tool-result+json"
INTERACTION: Final = "application/vnd.turnwire.interaction-request+json"
FINAL_STOPS: Final = {
    "TASK_STATE_COMPLETED": StopReason.END_TURN,
    "TASK_STATE_FAILED": StopReason.ERROR,
    "TASK_STATE_CANCELED": StopReason.CANCELLED,
    "TASK_STATE_REJECTED": StopReason.REFUSAL,
    "TASK_STATE_INPUT_REQUIRED": StopReason.PAUSED,
    "TASK_STATE_AUTH_REQUIRED": StopReason.ERROR,
}
"""A remote task's final state → the turn's stop reason."""


@dataclass(slots=True)
class RemotePause:
    """What the remote task waits for: its id, and per local approval call its remote token."""

    task_id: str
    context_id: str
    tokens: dict[str, str] = field(default_factory=dict)
    """Tool call id → the remote's interaction token (what the answer carries back)."""
    question: bool = False


@dataclass(slots=True)
class RemoteStream:
    """Folds one remote stream into events; ``task_id`` / ``pause`` / ``stop_reason`` once seen."""

    task_id: str | None = None
    context_id: str | None = None
    stop_reason: str | None = None
    pause: RemotePause | None = None
    _open: set[str] = field(default_factory=set)

    def events(self, response: dict[str, Any]) -> list[Event]:
        if "task" in response:
            task = response["task"]
            self.task_id, self.context_id = task.get("id"), task.get("contextId")
            status = task.get("status") or {}
            if status.get("state") in FINAL_STOPS:  # a blocking answer: the whole task at once
                out: list[Event] = []
                for artifact in task.get("artifacts") or []:
                    out.extend(self._artifact({"artifact": artifact, "lastChunk": True}))
                return out + self._final(status)
            return []
        if "artifactUpdate" in response:
            return self._artifact(response["artifactUpdate"])
        if "statusUpdate" in response:
            update = response["statusUpdate"]
            self.task_id = update.get("taskId") or self.task_id
            self.context_id = update.get("contextId") or self.context_id
            status = update.get("status") or {}
            if status.get("state") in FINAL_STOPS:
                return self._final(status)
            return self._working(status.get("message"))
        if "message" in response:
            text = _text(response["message"])
            self.stop_reason = StopReason.END_TURN
            return [MessageEvent(text)] if text else []
        return []

    def close(self) -> list[Event]:
        """Messages the remote left open (its stream ended without their last chunk)."""
        out: list[Event] = [MessageEnd(i) for i in sorted(self._open)]
        self._open.clear()
        return out

    def _artifact(self, update: dict[str, Any]) -> list[Event]:
        artifact = update.get("artifact") or {}
        artifact_id = f"a2a-{artifact.get('artifactId') or 'answer'}"
        out: list[Event] = []
        for part in artifact.get("parts") or []:
            if "text" in part:
                if artifact_id not in self._open:
                    self._open.add(artifact_id)
                    out.append(MessageStart(artifact_id))
                if part["text"]:
                    out.append(MessageDelta(artifact_id, part["text"]))
            elif "url" in part or "raw" in part:
                media_type = part.get("mediaType") or "application/octet-stream"
                url = part.get("url") or f"data:{media_type};base64,{part['raw']}"
                out.append(FileEvent(url, media_type))
            elif "data" in part:
                out.append(DataEvent(artifact.get("name") or artifact_id, part["data"]))
        if update.get("lastChunk") and artifact_id in self._open:
            self._open.discard(artifact_id)
            out.append(MessageEnd(artifact_id))
        return out

    def _working(self, message: Any) -> list[Event]:
        if not isinstance(message, dict):
            return []
        out: list[Event] = []
        for part in message.get("parts") or []:
            data = part.get("data") if isinstance(part.get("data"), dict) else None
            if data is not None and part.get("mediaType") == TOOL_CALL:
                out.append(ToolCall(data.get("toolCallId"), data.get("toolName"), data.get("input")))
            elif data is not None and part.get("mediaType") == TOOL_RESULT:
                out.append(
                    ToolResult(
                        data.get("toolCallId"),
                        data.get("output"),
                        is_error=data.get("isError"),
                        denied=True if data.get("denied") is True else None,
                        name=data.get("toolName"),
                    )
                )
            elif isinstance(part.get("text"), str) and part["text"]:
                out.append(MessageEvent(part["text"]))
        return out

    def _final(self, status: dict[str, Any]) -> list[Event]:
        out = self.close()
        state = status["state"]
        self.stop_reason = FINAL_STOPS[state]
        message = status.get("message") if isinstance(status.get("message"), dict) else None
        if state == "TASK_STATE_INPUT_REQUIRED":
            out.extend(self._requests(message))
        elif self.stop_reason == StopReason.ERROR:
            out.append(
                ErrorEvent(_text(message) or f"the remote agent's task ended {state}", code="remote_failed")
            )
        elif message is not None and _text(message):
            out.append(MessageEvent(_text(message)))
        out.append(Done(self.stop_reason))
        return out

    def _requests(self, message: dict[str, Any] | None) -> list[Event]:
        pause = self.pause = RemotePause(self.task_id or "", self.context_id or "")
        out: list[Event] = []
        for part in (message or {}).get("parts") or []:
            data = part.get("data") if isinstance(part.get("data"), dict) else None
            if data is None or part.get("mediaType") != INTERACTION:
                continue
            token = data.get("interactionToken")
            if data.get("kind") == InteractionKind.USER_APPROVAL and data.get("toolCallId"):
                call_id = data["toolCallId"]
                pause.tokens[call_id] = token if isinstance(token, str) else ""
                payload = {
                    "toolCallId": call_id,
                    "toolName": data.get("toolName"),
                    "input": data.get("input"),
                }
                out.append(InteractionRequest(f"remote-{call_id}", InteractionKind.USER_APPROVAL, payload))
            else:
                pause.question = True
                prompt = data.get("prompt") or _text(message) or "The remote agent needs input."
                out.append(
                    InteractionRequest(f"remote-{token}", InteractionKind.USER_INPUT, {"prompt": prompt})
                )
        if not out:  # a plain A2A agent asking in words
            pause.question = True
            prompt = _text(message) or "The remote agent needs input."
            out.append(MessageEvent(prompt))
            out.append(
                InteractionRequest(f"remote-{self.task_id}", InteractionKind.USER_INPUT, {"prompt": prompt})
            )
        return out


def _text(message: Any) -> str:
    if not isinstance(message, dict):
        return ""
    return "".join(p["text"] for p in message.get("parts") or [] if isinstance(p.get("text"), str))
