"""Approvals on the OpenAI door: a pause becomes a call of the ``turnwire_approval`` tool.

Chat Completions has one way to hand control back to the client and wait for an answer: a tool
call (``finish_reason: "tool_calls"``). So a turn paused for an approval ends with a call

    {"id": <approval id>, "type": "function",
     "function": {"name": "turnwire_approval",
                  "arguments": "{\"tool_call_id\": ..., \"tool\": ..., \"arguments\": {...}}"}}

and the client answers with a ``tool`` message for that id whose content is
``{"approved": true|false, "reason"?: "..."}``. Read back, the call stands for the call it asks
about (same id, tool and arguments) and the answer is that call's decision, signed by the
approval id: the server checks it like a decision from any other door.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import orjson

from turnwire.errors import InputError

APPROVAL_TOOL: Final = "turnwire_approval"
APPROVAL_TOOL_DESCRIPTION: Final = (
    "The agent asks the user to approve a tool call. Answer with a tool message whose content is "
    '{"approved": true} or {"approved": false, "reason": "..."}.'
)

Loc = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class ApprovalCall:
    """What a ``turnwire_approval`` call asks about, and the approval id (the call's own id)."""

    approval_id: str
    tool_call_id: str
    tool: str | None
    arguments: Any


def approval_arguments(tool_call_id: str, tool: str | None, arguments: Any) -> dict[str, Any]:
    return {"tool_call_id": tool_call_id, "tool": tool, "arguments": arguments}


def approval_call(arguments: Any, loc: Loc, approval_id: str = "") -> ApprovalCall:
    """The decoded arguments of a ``turnwire_approval`` call. Raises InputError on another shape."""
    if not isinstance(arguments, dict) or not isinstance(arguments.get("tool_call_id"), str):
        raise InputError(
            f"{APPROVAL_TOOL} arguments must be an object with a string tool_call_id",
            loc=loc,
            type="approval_call",
        )
    tool = arguments.get("tool")
    return ApprovalCall(
        approval_id,
        arguments["tool_call_id"],
        tool if isinstance(tool, str) else None,
        arguments.get("arguments"),
    )


def decision_of(text: str, asked: ApprovalCall, loc: Loc) -> dict[str, Any]:
    """The answer to an approval call → the decision output ``{"approved", "interactionToken", ...}``.

    The token is the approval call's id, which ``parse_messages`` passes in ``asked``.
    """
    try:
        answer = orjson.loads(text)
    except orjson.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict) or not isinstance(answer.get("approved"), bool):
        raise InputError(
            'the answer to an approval must be JSON {"approved": true|false}', loc=loc, type="approval_answer"
        )
    output: dict[str, Any] = {"approved": answer["approved"], "interactionToken": asked.approval_id}
    reason = answer.get("reason")
    if isinstance(reason, str) and reason:
        output["reason"] = reason
    return output
