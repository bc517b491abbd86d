"""Tool part states ↔ tool results: the one table both directions read.

A UIMessage tool part carries a call and at most one outcome; canonically that is a ``ToolCallBlock``
plus at most one ``ToolResultBlock``. An approval decision travels as a result whose output is
``{"approved": bool, "interactionToken": <approval id>}`` (what the Agenta runner reads).
"""

from __future__ import annotations

from typing import Any, Final

import orjson

from turnwire.errors import InputError
from turnwire.model import UNSET, ToolResultBlock

INPUT_STREAMING: Final = "input-streaming"
INPUT_AVAILABLE: Final = "input-available"
APPROVAL_REQUESTED: Final = "approval-requested"
APPROVAL_RESPONDED: Final = "approval-responded"
OUTPUT_AVAILABLE: Final = "output-available"
OUTPUT_ERROR: Final = "output-error"
OUTPUT_DENIED: Final = "output-denied"

MARKER_STATES: Final[dict[str, str]] = {
    "tool-output-available": OUTPUT_AVAILABLE,
    "TOOL_OUTPUT_AVAILABLE": OUTPUT_AVAILABLE,
    "tool-output-error": OUTPUT_ERROR,
    "tool-output-denied": OUTPUT_DENIED,
}
"""Marker part types (a result sent as its own part) → the state they imply when none is given."""

DENIED_TEXT: Final = "Tool call execution denied."


def error_text(output: Any) -> str:
    """A tool output as ``errorText``: strings as they are, anything else as JSON."""
    if output is UNSET or output is None:
        return ""
    if isinstance(output, str):
        return output
    return orjson.dumps(output, default=str).decode()


# --------------------------------------------------------------------------- inbound


def approval_decision(part: dict[str, Any], loc: tuple[str | int, ...]) -> tuple[bool | None, Any]:
    """``(approved, approval)`` of a part; ``approved`` is ``None`` when no decision was made.

    Raises InputError when ``approval.approved`` is present but not a real boolean (``"true"``, ``1``):
    a decision to run a tool is never guessed.
    """
    approval = part.get("approval")
    if not isinstance(approval, dict):
        return None, None
    approved = approval.get("approved")
    if approved is not None and not isinstance(approved, bool):
        raise InputError("approval.approved must be true or false", loc=(*loc, "approval", "approved"))
    for key in TOKEN_KEYS:
        token = approval.get(key)
        if approved is not None and token is not None and not isinstance(token, str):
            raise InputError(f"approval.{key} must be a string", loc=(*loc, "approval", key))
    return approved, approval


TOKEN_KEYS: Final = ("signature", "id")
"""Where a decision's approval token is read, first found first: ai 7 returns the ``signature``
the approval request carried (turnwire's signed token), every version the ``approvalId``."""


def decision_output(approved: bool, approval: dict[str, Any] | None) -> dict[str, Any]:
    output: dict[str, Any] = {"approved": approved}
    if approval is not None:
        token = next((t for k in TOKEN_KEYS if isinstance(t := approval.get(k), str) and t), None)
        if token is not None:
            output["interactionToken"] = token
        reason = approval.get("reason")
        if isinstance(reason, str) and reason:
            output["reason"] = reason
    return output


def result_of_part(
    part: dict[str, Any], state: Any, call_id: str | None, name: str | None, loc: tuple[str | int, ...]
) -> ToolResultBlock | None:
    """The one result a tool part implies (first rule wins), or ``None`` for a bare call.

    1. ``errorText`` or ``output-error`` → error result (``errorText``, else ``output``);
    2. ``output`` or ``output-available`` → the output;
    3. a boolean ``approval.approved``, or ``output-denied`` → the decision.
    """
    approved, approval = approval_decision(part, loc)
    error = part.get("errorText")
    if error is not None or state == OUTPUT_ERROR:
        output = error if error is not None else part.get("output", UNSET)
        return ToolResultBlock(id=call_id, name=name, output=output, is_error=True)
    if "output" in part or state == OUTPUT_AVAILABLE:
        return ToolResultBlock(id=call_id, name=name, output=part.get("output", UNSET), is_error=False)
    if approved is None and state == OUTPUT_DENIED:
        approved = False
    if approved is None:
        return None
    return ToolResultBlock(id=call_id, name=name, output=decision_output(approved, approval))


# --------------------------------------------------------------------------- outbound


def is_decision(output: Any) -> bool:
    return isinstance(output, dict) and isinstance(output.get("approved"), bool)


def apply_result(part: dict[str, Any], result: ToolResultBlock) -> None:
    """Set ``part``'s state and outcome fields from ``result`` (in place).

    A decision followed by the tool's real output keeps the decision as ``approval`` and ends
    ``output-available``/``output-error``, as the AI SDK stores an approved, executed call.
    """
    output = result.output
    if is_decision(output) and not result.is_error:
        approval: dict[str, Any] = {
            "id": output.get("interactionToken") or part["toolCallId"],
            "approved": output["approved"],
        }
        reason = output.get("reason")
        if isinstance(reason, str) and reason:
            approval["reason"] = reason
        part["approval"] = approval
        part["state"] = APPROVAL_RESPONDED if output["approved"] else OUTPUT_DENIED
        return
    if part.get("state") == OUTPUT_DENIED:
        return  # a denial is final: whatever the runner reports afterwards is the denial itself
    part.pop("output", None)
    part.pop("errorText", None)
    if result.is_error:
        part["state"] = OUTPUT_ERROR
        part["errorText"] = error_text(output)
    else:
        part["state"] = OUTPUT_AVAILABLE
        part["output"] = None if output is UNSET else output


def request_approval(part: dict[str, Any], approval_id: str) -> None:
    """A call still waiting for its approval: ``approval-requested`` with the id to answer with."""
    if part.get("state") == INPUT_AVAILABLE:
        part["state"] = APPROVAL_REQUESTED
        part["approval"] = {"id": approval_id}


V5_STATES: Final[dict[str, str]] = {
    APPROVAL_REQUESTED: INPUT_AVAILABLE,
    APPROVAL_RESPONDED: INPUT_AVAILABLE,
    OUTPUT_DENIED: OUTPUT_ERROR,
}
"""States AI SDK 5 does not know → the nearest state it does (it has no approvals at all)."""


def for_v5(part: dict[str, Any]) -> None:
    """Rewrite a tool part in place into what AI SDK 5 accepts: no approval states or objects;
    a denial is an error reading ``Tool call execution denied.`` (v5's own wording for it)."""
    state = part.get("state")
    approval = part.pop("approval", None)
    new_state = V5_STATES.get(state) if isinstance(state, str) else None
    if new_state is None:
        return
    part["state"] = new_state
    if new_state == OUTPUT_ERROR:
        reason = approval.get("reason") if isinstance(approval, dict) else None
        part["errorText"] = reason if isinstance(reason, str) and reason else DENIED_TEXT
