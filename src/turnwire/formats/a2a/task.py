"""A turn as an A2A ``Task``: the stop reason → task state table, the status message of a paused
task, and a whole task rendered from the canonical messages it holds.

A task's ``artifacts`` are the answer: one artifact per text block of the agent's messages
(``text-<n>``, counted over the task, named ``answer``) and one per file it sent (``file-<n>``).
``history`` is every message of the task, the user's first. The stream names its artifacts the
same way, so the task a blocking send returns, ``GetTask`` and the stream's client agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final

from turnwire.formats.a2a.messages import ROLE_AGENT, render_message
from turnwire.interactions import tool_call_id_of, tool_input_of, tool_name_of
from turnwire.model import (
    ImageBlock,
    InteractionKind,
    InteractionRequest,
    Message,
    ResourceBlock,
    Role,
    StopReason,
    TextBlock,
)

SUBMITTED: Final = "TASK_STATE_SUBMITTED"
WORKING: Final = "TASK_STATE_WORKING"
COMPLETED: Final = "TASK_STATE_COMPLETED"
FAILED: Final = "TASK_STATE_FAILED"
CANCELED: Final = "TASK_STATE_CANCELED"
INPUT_REQUIRED: Final = "TASK_STATE_INPUT_REQUIRED"
REJECTED: Final = "TASK_STATE_REJECTED"
AUTH_REQUIRED: Final = "TASK_STATE_AUTH_REQUIRED"

TASK_STATES: Final[dict[str | None, str]] = {
    StopReason.END_TURN: COMPLETED,
    StopReason.MAX_TOKENS: COMPLETED,
    StopReason.TOOL_USE: COMPLETED,
    StopReason.REFUSAL: REJECTED,
    StopReason.PAUSED: INPUT_REQUIRED,
    StopReason.CANCELLED: CANCELED,
    StopReason.ERROR: FAILED,
    None: COMPLETED,
}
"""The turn's stop reason → the task's state; any other stop reason completes the task."""
TERMINAL: Final = frozenset((COMPLETED, FAILED, CANCELED, REJECTED))
"""States a task never leaves."""
INTERACTION_MEDIA_TYPE: Final = "application/vnd.turnwire.interaction-request+json"
ANSWER: Final = "answer"


def task_state(stop_reason: str | None, *, error: bool = False) -> str:
    """The task state a turn that stopped for ``stop_reason`` leaves (``error``: it failed)."""
    if error:
        return FAILED
    return TASK_STATES.get(stop_reason, COMPLETED)


def interaction_part(request: InteractionRequest) -> dict[str, Any]:
    """The ``data`` part that asks the client for an approval or an answer: the request's kind,
    the tool call it is about, and the token an answer must carry (``interactionToken``)."""
    data: dict[str, Any] = {"kind": request.kind, "interactionToken": request.id}
    if request.kind == InteractionKind.USER_APPROVAL or request.kind == InteractionKind.CLIENT_TOOL:
        data["toolCallId"] = tool_call_id_of(request)
        data["toolName"] = tool_name_of(request)
        data["input"] = tool_input_of(request)
    payload = request.payload if isinstance(request.payload, dict) else {}
    prompt = payload.get("prompt") or payload.get("message")
    if isinstance(prompt, str) and prompt:
        data["prompt"] = prompt
    return {"data": data, "mediaType": INTERACTION_MEDIA_TYPE}


def status_message(
    task_id: str,
    context_id: str,
    message_id: str,
    *,
    pending: Sequence[InteractionRequest] = (),
    error: str | None = None,
) -> dict[str, Any] | None:
    """The agent's message on a task's status: what it asks (paused), or why it failed."""
    if pending:
        parts = [interaction_part(r) for r in pending]
    elif error:
        parts = [{"text": error}]
    else:
        return None
    return {
        "messageId": message_id,
        "contextId": context_id,
        "taskId": task_id,
        "role": ROLE_AGENT,
        "parts": parts,
    }


def status(state: str, message: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"state": state, "timestamp": now()}
    if message is not None:
        out["message"] = message
    return out


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def text_artifact(n: int, parts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"artifactId": f"text-{n}", "name": ANSWER, "parts": parts}


def file_artifact(n: int, part: dict[str, Any]) -> dict[str, Any]:
    return {"artifactId": f"file-{n}", "name": part.get("filename") or "file", "parts": [part]}


def render_task(
    task_id: str,
    context_id: str,
    messages: Sequence[Message],
    state: str,
    *,
    pending: Sequence[InteractionRequest] = (),
    error: str | None = None,
    history_length: int | None = None,
    metadata: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``Task`` holding ``messages`` (the user's first), in ``state``. ``history_length``: keep
    only the last n history messages (0: none; ``None``: all)."""
    artifacts: list[dict[str, Any]] = []
    texts = files = 0
    history: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        if not msg.content:
            continue
        history.append(
            render_message(
                msg, context_id=context_id, task_id=task_id, message_id=msg.id or f"{task_id}-m{i}"
            )
        )
        if msg.role != Role.ASSISTANT:
            continue
        for block in msg.content:
            if isinstance(block, TextBlock):
                texts += 1
                artifacts.append(text_artifact(texts, [{"text": block.text}]))
            elif isinstance(block, ImageBlock | ResourceBlock):
                files += 1
                artifacts.append(file_artifact(files, history[-1]["parts"][msg.content.index(block)]))
    if history_length is not None:
        history = history[-history_length:] if history_length > 0 else []
    message = status_message(task_id, context_id, f"{task_id}-status", pending=pending, error=error)
    task: dict[str, Any] = {"id": task_id, "contextId": context_id, "status": status(state, message)}
    if artifacts:
        task["artifacts"] = artifacts
    if history:
        task["history"] = history
    if metadata:
        task["metadata"] = metadata
    return task
