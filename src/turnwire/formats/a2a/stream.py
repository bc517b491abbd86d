"""Canonical events → A2A ``StreamResponse`` objects (``SendStreamingMessage``, ``SubscribeToTask``).

The stream opens with the ``task`` (``TASK_STATE_SUBMITTED``, the user's message as its history)
and a ``statusUpdate`` to ``TASK_STATE_WORKING``, and closes with one ``statusUpdate`` to the state
the turn's stop reason gives (``task.TASK_STATES``). In between:

=============================  ==============================================================
event                          stream response
=============================  ==============================================================
text (start, deltas, end)      ``artifactUpdate`` of artifact ``text-<n>`` (name ``answer``): the
                               first delta ``append: false``, later ones ``append: true``; the
                               last one ``lastChunk: true`` (each delta is held until the next
                               one or the end, so the last delta carries it)
whole text message             one ``artifactUpdate``, ``lastChunk: true``
tool call / tool result        ``statusUpdate`` (working) whose message holds the call's or the
                               result's ``data`` part (``parts``)
data                           ``statusUpdate`` (working) with the ``data`` part
file                           ``artifactUpdate`` of artifact ``file-<n>``, ``lastChunk: true``
interaction request            kept for the end: the final ``statusUpdate`` (input-required)
                               carries one ``data`` part per request (``task.interaction_part``)
error                          the final ``statusUpdate`` (failed) carries its message as text
usage, stop reason             the final ``statusUpdate``'s ``metadata`` (``usage``, ``stopReason``)
thoughts                       not streamed (the task's history keeps them as reasoning parts)
=============================  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from turnwire.formats.a2a.parts import render_part, tool_call_part, tool_result_part
from turnwire.formats.a2a.task import (
    INPUT_REQUIRED,
    SUBMITTED,
    WORKING,
    file_artifact,
    status,
    status_message,
    task_state,
    text_artifact,
)
from turnwire.model import (
    DataBlock,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ResourceBlock,
    StopReason,
    ToolCall,
    ToolResult,
    Usage,
)

Frame = dict[str, Any]


@dataclass(slots=True)
class _Text:
    artifact: int
    held: str | None = None
    sent: bool = False


@dataclass(slots=True)
class TaskStreamEncoder:
    """One turn of task ``task_id`` as stream responses (the ``StreamEncoder`` contract).

    ``inbound``: the user's A2A message(s) that started the turn (the opening task's history);
    ``texts`` / ``files``: the artifacts the task already has (a resumed task counts on);
    ``announce``: open with the task itself (a new task) or only the working status (a resumed one);
    ``turn_id``: names this turn's status messages (a task's turns each send their own);
    ``seen``: a list every encoded event is appended to (a blocking answer folds them).
    """

    task_id: str
    context_id: str
    inbound: list[dict[str, Any]] = field(default_factory=list)
    texts: int = 0
    files: int = 0
    announce: bool = True
    turn_id: str = ""
    seen: list[Event] | None = None
    stop_reason: str | None = None
    error: str | None = None
    requests: list[InteractionRequest] = field(default_factory=list)
    usage: Usage | None = None
    state: str = SUBMITTED
    _open: dict[str, _Text] = field(default_factory=dict)
    _updates: int = 0

    def start(self) -> list[Frame]:
        frames: list[Frame] = []
        if self.announce:
            task: dict[str, Any] = {
                "id": self.task_id,
                "contextId": self.context_id,
                "status": status(SUBMITTED),
            }
            if self.inbound:
                task["history"] = self.inbound
            frames.append({"task": task})
        self.state = WORKING
        frames.append(self._status(status(WORKING)))
        return frames

    def encode(self, event: Event) -> list[Frame]:
        if self.seen is not None:
            self.seen.append(event)
        if isinstance(event, MessageDelta):
            return self._delta(event)
        if isinstance(event, MessageStart):
            self.texts += 1
            self._open[event.id] = _Text(self.texts)
            return []
        if isinstance(event, MessageEnd):
            return self._end(event.id)
        if isinstance(event, MessageEvent):
            self.texts += 1
            return [self._artifact(text_artifact(self.texts, [{"text": event.text}]), False, True)]
        if isinstance(event, ToolCall):
            return [self._working([tool_call_part(event.id, event.name, event.arguments)])]
        if isinstance(event, ToolResult):
            is_error = True if event.denied else event.is_error
            part = tool_result_part(event.id, event.name, event.result_output, is_error)
            if event.denied:  # the user refused the call: no failure of the tool's own
                part["data"]["denied"] = True
            return [self._working([part])]
        if isinstance(event, DataEvent):
            part = render_part(DataBlock(event.data, event.name))
            if event.transient:
                part.setdefault("metadata", {})["transient"] = True
            return [self._working([part])]
        if isinstance(event, FileEvent):
            self.files += 1
            part = render_part(ResourceBlock(uri=event.url, mime_type=event.media_type))
            return [self._artifact(file_artifact(self.files, part), False, True)]
        if isinstance(event, InteractionRequest):
            self.requests.append(event)
        elif isinstance(event, ErrorEvent):
            self.error = event.message
        elif isinstance(event, Done):
            self.stop_reason = event.stop_reason
        elif isinstance(event, Usage):
            self.usage = event
        return []

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Frame]:
        frames: list[Frame] = []
        for message_id in list(self._open):
            frames.extend(self._end(message_id))
        reason = stop_reason if stop_reason is not None else self.stop_reason
        failure = error or self.error
        failed = error is not None or (failure is not None and reason in (None, StopReason.ERROR))
        self.state = task_state(reason, error=failed)
        pending = self.requests if self.state == INPUT_REQUIRED else []
        message = status_message(
            self.task_id,
            self.context_id,
            f"{self.task_id}-{self.turn_id}-status",
            pending=pending,
            error=failure if failed else None,
        )
        metadata: dict[str, Any] = {"stopReason": "error" if failed and reason is None else reason}
        if self.usage is not None:
            usage = {"input": self.usage.input, "output": self.usage.output, "total": self.usage.total}
            metadata["usage"] = {k: v for k, v in usage.items() if v is not None}
        frames.append(self._status(status(self.state, message), metadata))
        return frames

    # ----------------------------------------------------------------- helpers

    def _delta(self, event: MessageDelta) -> list[Frame]:
        text = self._open.get(event.id)
        if text is None:  # a delta without its start: a message of its own
            self.texts += 1
            text = self._open[event.id] = _Text(self.texts)
        frames = []
        if text.held is not None:
            frames.append(self._chunk(text, text.held, last=False))
        text.held = event.delta
        return frames

    def _end(self, message_id: str) -> list[Frame]:
        text = self._open.pop(message_id, None)
        if text is None:
            return []
        if text.held is None and text.sent:
            return [self._chunk(text, "", last=True)]
        return [self._chunk(text, text.held or "", last=True)]

    def _chunk(self, text: _Text, delta: str, *, last: bool) -> Frame:
        append, text.sent, text.held = text.sent, True, None
        return self._artifact(text_artifact(text.artifact, [{"text": delta}]), append, last)

    def _artifact(self, artifact: dict[str, Any], append: bool, last: bool) -> Frame:
        update = {
            "taskId": self.task_id,
            "contextId": self.context_id,
            "artifact": artifact,
            "append": append,
            "lastChunk": last,
        }
        return {"artifactUpdate": update}

    def _working(self, parts: list[dict[str, Any]]) -> Frame:
        self._updates += 1
        message = {
            "messageId": f"{self.task_id}-{self.turn_id}-u{self._updates}",
            "contextId": self.context_id,
            "taskId": self.task_id,
            "role": "ROLE_AGENT",
            "parts": parts,
        }
        return self._status(status(WORKING, message))

    def _status(self, task_status: dict[str, Any], metadata: dict[str, Any] | None = None) -> Frame:
        update: dict[str, Any] = {"taskId": self.task_id, "contextId": self.context_id, "status": task_status}
        if metadata:
            update["metadata"] = metadata
        return {"statusUpdate": update}
