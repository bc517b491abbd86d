"""The gate every agent event passes: is it a turnwire event with fields of the right types?

Encoders trust what the runtime hands them, so a malformed event from an agent must be caught here,
not surface later as a crash in a format module or as a frame a client rejects.
"""

from __future__ import annotations

from collections.abc import Callable

from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
    FileEvent,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    Usage,
)

# Each check takes the class it is registered for (``CHECKS``) and tests that the fields really hold
# what the class declares: an agent can build an event with anything in them.


def _id(
    event: MessageStart | MessageEnd | ThoughtStart | ThoughtEnd | InteractionRequest | InteractionResponse,
) -> str | None:
    value = event.id
    return None if isinstance(value, str) and value else "id must be a non-empty string"


def _id_delta(event: MessageDelta | ThoughtDelta) -> str | None:
    # The most frequent event: _id inlined.
    if not isinstance(event.delta, str):
        return "delta must be a string"
    value = event.id
    return None if isinstance(value, str) and value else "id must be a non-empty string"


def _text(event: MessageEvent | Thought) -> str | None:
    return None if isinstance(event.text, str) else "text must be a string"


def _optional(value: object, kind: type | tuple[type, ...]) -> bool:
    return value is None or isinstance(value, kind)


def _tool_call(event: ToolCall) -> str | None:
    if not _optional(event.id, str) or not _optional(event.name, str):
        return "id and name must be strings or None"
    return None


def _tool_result(event: ToolResult) -> str | None:
    if not _optional(event.id, str) or not _optional(event.name, str):
        return "id and name must be strings or None"
    if not _optional(event.is_error, bool) or not _optional(event.denied, bool):
        return "is_error and denied must be booleans or None"
    return None


def _interaction(event: InteractionRequest | InteractionResponse) -> str | None:
    if not isinstance(event.kind, str) or not event.kind:
        return "kind must be a non-empty string"
    return _id(event)


def _data(event: DataEvent) -> str | None:
    if not _optional(event.name, str) or not _optional(event.transient, bool):
        return "name must be a string or None, transient a boolean or None"
    return None


def _file(event: FileEvent) -> str | None:
    if not isinstance(event.url, str) or not isinstance(event.media_type, str):
        return "url and media_type must be strings"
    return None if _optional(event.reasoning, bool) else "reasoning must be a boolean or None"


def _count(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def _usage(event: Usage) -> str | None:
    if not (_count(event.input) and _count(event.output) and _count(event.total)):
        return "input, output and total must be integers or None"
    if event.cost is not None and (isinstance(event.cost, bool) or not isinstance(event.cost, int | float)):
        return "cost must be a number or None"
    return None


def _error(event: ErrorEvent) -> str | None:
    if not isinstance(event.message, str) or not _optional(event.code, str):
        return "message must be a string, code a string or None"
    return None


def _done(event: Done) -> str | None:
    return None if _optional(event.stop_reason, str) else "stop_reason must be a string or None"


def _nonempty(value: object) -> bool:
    return isinstance(value, str) and bool(value)


def _source_url(event: SourceUrl) -> str | None:
    if not _nonempty(event.id) or not _nonempty(event.url):
        return "id and url must be non-empty strings"
    return None if _optional(event.title, str) else "title must be a string or None"


def _source_document(event: SourceDocument) -> str | None:
    if not _nonempty(event.id) or not _nonempty(event.media_type):
        return "id and media_type must be non-empty strings"
    if not isinstance(event.title, str) or not _optional(event.filename, str):
        return "title must be a string, filename a string or None"
    return None


def _tool_call_delta(event: ToolCallDelta) -> str | None:
    if not _nonempty(event.id) or not isinstance(event.delta, str):
        return "id must be a non-empty string, delta a string"
    return None if _optional(event.name, str) else "name must be a string or None"


def _tool_progress(event: ToolProgress) -> str | None:
    return None if _nonempty(event.id) else "id must be a non-empty string"


def _state_snapshot(event: StateSnapshot) -> str | None:
    return None


def _state_delta(event: StateDelta) -> str | None:
    # RFC 6902: a list of operation objects, each with a string ``op`` and ``path``.
    delta = event.delta
    if not isinstance(delta, list) or not all(
        isinstance(op, dict) and isinstance(op.get("op"), str) and isinstance(op.get("path"), str)
        for op in delta
    ):
        return "delta must be a list of JSON Patch operations ({op, path, ...})"
    return None


def _named(event: StepStart | StepEnd) -> str | None:
    return None if _nonempty(event.name) else "name must be a non-empty string"


def _agent(event: AgentStart | AgentEnd) -> str | None:
    if not _nonempty(event.name) or not _optional(event.id, str):
        return "name must be a non-empty string, id a string or None"
    return None


def _custom(event: CustomEvent) -> str | None:
    kind = event.kind
    namespace, dot, name = kind.partition(".") if isinstance(kind, str) else ("", "", "")
    if not (namespace and dot and name) or any(c.isspace() for c in kind):
        return "kind must be namespaced: '<namespace>.<name>' without spaces"
    return None


CHECKS: dict[type, Callable[..., str | None]] = {
    MessageEvent: _text,
    MessageStart: _id,
    MessageDelta: _id_delta,
    MessageEnd: _id,
    Thought: _text,
    ThoughtStart: _id,
    ThoughtDelta: _id_delta,
    ThoughtEnd: _id,
    ToolCall: _tool_call,
    ToolResult: _tool_result,
    InteractionRequest: _interaction,
    InteractionResponse: _interaction,
    DataEvent: _data,
    FileEvent: _file,
    Usage: _usage,
    ErrorEvent: _error,
    Done: _done,
    SourceUrl: _source_url,
    SourceDocument: _source_document,
    ToolCallDelta: _tool_call_delta,
    ToolProgress: _tool_progress,
    StateSnapshot: _state_snapshot,
    StateDelta: _state_delta,
    StepStart: _named,
    StepEnd: _named,
    AgentStart: _agent,
    AgentEnd: _agent,
    CustomEvent: _custom,
}
"""Exact event class -> its check (``None`` when the event is well-formed). Read-only: a loop over
many events calls the check directly and ``validate_event`` only for the reason of a failure."""


def validate_event(event: object) -> str | None:
    """``None`` if ``event`` is a well-formed turnwire event, else a one-line reason it is not.

    Only instances of the model's event classes pass (exact classes: a subclass could carry
    fields no encoder knows). Payload fields typed ``Any`` (tool input, data, detail) are not
    inspected here.
    """
    check = CHECKS.get(type(event))
    if check is None:
        return f"agent yielded {type(event).__name__}, not a turnwire event"
    problem = check(event)
    return None if problem is None else f"{type(event).__name__}: {problem}"
