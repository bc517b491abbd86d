"""Interaction requests ⇄ AG-UI interrupts (``RUN_FINISHED.outcome.interrupts`` / ``resume[]``).

A paused turn ends its run with ``outcome: {type: "interrupt", interrupts: [...]}``; the next run
answers every open interrupt in ``RunAgentInput.resume``. The server keeps nothing about what it
asked: an interrupt id carries everything needed to read its answer back, so a resume works the
same on a warm session, after a restart or on another worker.

Interrupt id: ``<kind>/<tool call id>/<request id>``, each part percent-encoded (so ``/`` only
separates). For an approval the request id is the signed approval token the server issued.

============================  ==================================================================
request kind                  interrupt                         → resume entry becomes
============================  ==================================================================
``user_approval`` with call   ``reason: "tool_call"``,          a ``tool`` message: ``ToolResultBlock``
                              ``toolCallId``, schema            with ``{"approved", "interactionToken",
                              ``{approved: boolean, reason?}``  "reason"?}`` (``cancelled`` = denied)
``user_input``                ``reason: "input_required"``,     a ``user`` message with the answer's
                              ``message`` = the prompt          text (``payload`` string, or
                                                                ``payload.text``; else JSON)
other kinds                   ``reason: "turnwire:<kind>"``     a ``user`` message holding a
                                                                ``DataBlock("interaction_response")``
============================  ==================================================================

The messages made from ``resume`` are named ``resume:<interruptId>`` (``RESUME_ID_PREFIX``; the
decisions' message by its first interrupt). An answer given as text is a user message the client
must hold too, or its next run would leave it out of the conversation: the run sends it in
``RUN_STARTED.input`` (``resume_answers``). Decisions and other answers are no AG-UI message: the
stored conversation read back as AG-UI leaves them out (``conversation``).

``client_tool`` requests are not interrupts: the call goes out as ``TOOL_CALL_*`` and the run
finishes with ``pendingToolCallIds``; the client answers with a ``tool`` message, as AG-UI does
for every frontend tool.

AG-UI 1.0's optional interrupt fields, each left out when it has no value:

- ``responseSchema``: the JSON Schema of the ``payload`` the resume entry must carry — the table's
  schema for approvals and questions; for other kinds the request's own ``response_schema``
  (``responseSchema``) when its payload gives one (their answer is passed on as it comes).
- ``expiresAt``: when the interrupt stops being answerable (ISO 8601, UTC). turnwire's approval
  tokens do not expire (a paused turn is answerable after any restart), so it is sent only when
  the request's payload names a deadline of the agent's own (``expires_at`` / ``expiresAt``: ISO
  8601 text as given, or seconds since the epoch); the agent that set it is the one that enforces it.
- ``subagentRunId``: the sub-agent that raised it (``stream`` passes it).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Final
from urllib.parse import quote, unquote

import orjson

from turnwire.errors import InputError
from turnwire.interactions import tool_call_id_of, tool_input_of, tool_name_of
from turnwire.model import (
    Block,
    DataBlock,
    InteractionKind,
    InteractionRequest,
    Message,
    TextBlock,
    ToolResultBlock,
)

TOOL_CALL: Final = "tool_call"
INPUT_REQUIRED: Final = "input_required"
CUSTOM_PREFIX: Final = "turnwire:"
RESOLVED: Final = "resolved"
CANCELLED: Final = "cancelled"
RESPONSE_DATA: Final = "interaction_response"
RESUME_ID_PREFIX: Final = "resume:"
"""The id prefix of a message made from a ``resume`` answer (module docstring)."""

APPROVAL_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}
INPUT_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"text": {"type": "string"}},
    "required": ["text"],
}

Loc = tuple[str | int, ...]


def interrupt_id(request: InteractionRequest, call_id: str | None = None) -> str:
    """The interrupt id of ``request``: kind, tool call id and request id, percent-encoded."""
    return "/".join(quote(part, safe="") for part in (request.kind, call_id or "", request.id))


def split_interrupt_id(value: str) -> tuple[str, str | None, str] | None:
    """``(kind, tool call id or None, request id)`` of an id made by ``interrupt_id``, else ``None``."""
    parts = value.split("/")
    if len(parts) != 3 or not parts[0]:
        return None  # an empty request id stays: the pipeline refuses a decision without its token
    kind, call_id, request_id = (unquote(p) for p in parts)
    return kind, call_id or None, request_id


def interrupt_of(request: InteractionRequest, subagent_run_id: str | None = None) -> dict[str, Any] | None:
    """The AG-UI interrupt for ``request`` (raised inside the sub-agent ``subagent_run_id``, if
    given); ``None`` for a client tool (not an interrupt)."""
    kind = request.kind
    payload = request.payload if isinstance(request.payload, dict) else {}
    metadata = {"turnwire": {"kind": kind, "requestId": request.id, "payload": request.payload}}
    if kind == InteractionKind.CLIENT_TOOL:
        return None
    interrupt: dict[str, Any]
    call_id = tool_call_id_of(request) if kind == InteractionKind.USER_APPROVAL else None
    if call_id is not None:
        name = tool_name_of(request)
        interrupt = {
            "id": interrupt_id(request, call_id),
            "reason": TOOL_CALL,
            "message": _approval_message(name, tool_input_of(request)),
            "toolCallId": call_id,
            "responseSchema": APPROVAL_SCHEMA,
        }
    else:
        interrupt = {"id": interrupt_id(request)}
        if kind == InteractionKind.USER_INPUT:
            interrupt["reason"] = INPUT_REQUIRED
            interrupt["responseSchema"] = INPUT_SCHEMA
        else:
            interrupt["reason"] = CUSTOM_PREFIX + (kind or "interaction")
            schema = payload.get("response_schema", payload.get("responseSchema"))
            if isinstance(schema, dict):
                interrupt["responseSchema"] = schema
        prompt = payload.get("prompt") or payload.get("message")
        if isinstance(prompt, str) and prompt:
            interrupt["message"] = prompt
    expires_at = _expires_at(payload.get("expires_at", payload.get("expiresAt")))
    if expires_at is not None:
        interrupt["expiresAt"] = expires_at
    if subagent_run_id is not None:
        interrupt["subagentRunId"] = subagent_run_id
    interrupt["metadata"] = metadata
    return interrupt


def _expires_at(value: Any) -> str | None:
    """The agent's deadline as ISO 8601 (module docstring): text as given, epoch seconds in UTC."""
    if isinstance(value, str) and value:
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            moment = datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            return None  # no date: an interrupt that never expires, as without one
        return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return None


def _approval_message(name: str | None, arguments: Any) -> str:
    if arguments is None:
        return f"Approve {name}?"
    return f"Approve {name} {orjson.dumps(arguments, default=str).decode()}?"


# --------------------------------------------------------------------------- resume[] → messages


def parse_resume(raw: Any, loc: Loc = ("resume",)) -> list[Message]:
    """``RunAgentInput.resume`` → the canonical messages that answer the interrupts, in order.

    Raises ``InputError`` for a resume that is not a list of objects, an entry without a string
    ``interruptId`` or with a ``status`` other than ``resolved``/``cancelled``, an id this server
    did not make, an approval without a boolean ``approved``, and an approval with ``editedArgs``
    (an approval is signed for the arguments it showed; edited arguments need a new request).
    """
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError("resume must be a list", loc=loc)
    approvals: list[Any] = []
    approvals_id: str | None = None
    out: list[Message] = []
    for i, entry in enumerate(raw):
        raw_id, item = _answer(entry, (*loc, i))
        if isinstance(item, ToolResultBlock):
            approvals_id = approvals_id or RESUME_ID_PREFIX + raw_id
            approvals.append(item)
        else:
            out.append(item)
    # Every decision in one tool message, before the answers to other questions.
    return ([Message("tool", approvals, approvals_id)] if approvals else []) + out


def _answer(entry: Any, loc: Loc) -> tuple[str, ToolResultBlock | Message]:
    """The entry's interrupt id and what it becomes."""
    if not isinstance(entry, dict):
        raise InputError("a resume entry must be an object", loc=loc)
    raw_id = entry.get("interruptId", entry.get("interrupt_id"))
    if not isinstance(raw_id, str) or not raw_id:
        raise InputError("interruptId must be a non-empty string", loc=(*loc, "interruptId"))
    status = entry.get("status")
    if status not in (RESOLVED, CANCELLED):
        raise InputError("status must be 'resolved' or 'cancelled'", loc=(*loc, "status"), type="enum")
    parts = split_interrupt_id(raw_id)
    if parts is None:
        raise InputError(
            "interruptId does not name an interrupt of this server",
            loc=(*loc, "interruptId"),
            type="unknown_interrupt",
        )
    kind, call_id, request_id = parts
    payload = entry.get("payload")
    if kind == InteractionKind.USER_APPROVAL and call_id is not None:
        return raw_id, _decision(call_id, request_id, status, payload, loc)
    if kind == InteractionKind.USER_INPUT:
        text = "" if status == CANCELLED else _text_of(payload)
        metadata = {"interruptId": raw_id, "status": status}
        return raw_id, Message("user", [TextBlock(text)], RESUME_ID_PREFIX + raw_id, metadata=metadata)
    data = {"id": request_id, "kind": kind, "status": status, "payload": payload}
    answer: list[Block] = [DataBlock(data, RESPONSE_DATA)]
    return raw_id, Message("user", answer, RESUME_ID_PREFIX + raw_id, metadata={"interruptId": raw_id})


def _decision(call_id: str, token: str, status: str, payload: Any, loc: Loc) -> ToolResultBlock:
    output: dict[str, Any] = {"approved": False, "interactionToken": token}
    if status == RESOLVED:
        if not isinstance(payload, dict) or not isinstance(payload.get("approved"), bool):
            raise InputError(
                'an approval\'s payload must be {"approved": true|false}', loc=(*loc, "payload", "approved")
            )
        if payload.get("editedArgs") is not None:
            raise InputError(
                "editedArgs is not supported: an approval covers the arguments it showed",
                loc=(*loc, "payload", "editedArgs"),
                type="unsupported",
            )
        output["approved"] = payload["approved"]
        reason = payload.get("reason")
        if isinstance(reason, str) and reason:
            output["reason"] = reason
    else:
        output["reason"] = "cancelled"
    return ToolResultBlock(call_id, output=output)


def resume_answers(history: Sequence[Message]) -> list[Message]:
    """The answers given as text that end ``history`` (a run's ``resume`` made them): the user
    messages an AG-UI client holds for them (module docstring)."""
    answers: list[Message] = []
    for msg in reversed(history):
        if not (msg.id or "").startswith(RESUME_ID_PREFIX):
            break
        if is_text_answer(msg):
            answers.append(msg)
    return answers[::-1]


def is_text_answer(msg: Message) -> bool:
    """A ``resume`` answer an AG-UI client holds as a user message (its text)."""
    return (
        (msg.id or "").startswith(RESUME_ID_PREFIX)
        and msg.role == "user"
        and all(isinstance(b, TextBlock) for b in msg.content)
    )


def _text_of(payload: Any) -> str:
    if isinstance(payload, str):
        return payload
    if isinstance(payload, dict):
        for key in ("text", "answer", "value"):
            if isinstance(payload.get(key), str):
                return payload[key]
    if payload is None:
        return ""
    return orjson.dumps(payload, default=str).decode()
