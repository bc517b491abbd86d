"""Reading interaction requests: one ladder for the tool a request is about.

Batch output (``pending_interaction.tool``) and the Vercel stream (tool part names) both use these
functions, so the two can never disagree on a name (the reference has two ladders that do).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from turnwire.model import InteractionKind, InteractionRequest


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def tool_call_of(request: InteractionRequest) -> dict[str, Any] | None:
    """The ``payload.toolCall`` object of a request, if it has one."""
    payload = request.payload
    if isinstance(payload, dict):
        call = payload.get("toolCall")
        if isinstance(call, dict):
            return call
    return None


def tool_call_id_of(request: InteractionRequest) -> str | None:
    """``payload.toolCallId`` → ``payload.toolCall.id`` → ``payload.toolCall.toolCallId``."""
    payload = request.payload if isinstance(request.payload, dict) else {}
    call = tool_call_of(request) or {}
    return _str(payload.get("toolCallId")) or _str(call.get("id")) or _str(call.get("toolCallId"))


def tool_name_of(request: InteractionRequest) -> str | None:
    """The machine name of the tool a request is about.

    ``payload.toolName`` → ``toolCall.resolvedName`` → ``toolCall.name`` → ``toolCall.title`` →
    the request's ``kind``. A display title is only a fallback: the name a client echoes back must
    be the one the tool runs under, or a cold resume cannot match the approval to its call.
    """
    payload = request.payload if isinstance(request.payload, dict) else {}
    call = tool_call_of(request) or {}
    return (
        _str(payload.get("toolName"))
        or _str(call.get("resolvedName"))
        or _str(call.get("name"))
        or _str(call.get("title"))
        or _str(request.kind)
    )


def tool_title_of(request: InteractionRequest) -> str | None:
    """The tool's display title, when the request's call names one (``toolCall.title``)."""
    return _str((tool_call_of(request) or {}).get("title"))


def tool_input_of(request: InteractionRequest) -> Any:
    """``payload.input`` → ``toolCall.rawInput`` → ``toolCall.input`` (``None`` when absent)."""
    payload = request.payload if isinstance(request.payload, dict) else {}
    call = tool_call_of(request) or {}
    for value in (payload.get("input"), call.get("rawInput"), call.get("input")):
        if value is not None:
            return value
    return None


def render_pending(request: InteractionRequest) -> dict[str, Any]:
    """A batch response's ``pending_interaction``: the request, plus ``tool`` from the one ladder."""
    out: dict[str, Any] = {"type": "interaction_request", "id": request.id, "kind": request.kind}
    if request.payload is not None:
        out["payload"] = request.payload
    out["tool"] = tool_name_of(request)
    return out


def pending_approvals(requests: Iterable[InteractionRequest]) -> dict[str, str]:
    """``{tool call id: approval id}`` of the ``user_approval`` requests among ``requests``."""
    out: dict[str, str] = {}
    for request in requests:
        if request.kind == InteractionKind.USER_APPROVAL:
            call_id = tool_call_id_of(request)
            if call_id:
                out[call_id] = request.id
    return out
