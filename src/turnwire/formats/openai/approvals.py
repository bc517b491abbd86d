"""Approvals on the OpenAI door: a pause becomes a call of the ``turnwire_approval`` tool.

Chat Completions has one way to hand control back to the client and wait for an answer: a tool
call (``finish_reason: "tool_calls"``). So a turn paused for an approval ends with a call

    {"id": <approval id>, "type": "function",
     "function": {"name": "turnwire_approval",
                  "arguments": "{\"tool_call_id\": ..., \"tool\": ..., \"arguments\": {...},
                                 \"session_id\": ...}"}}

and the client answers with a ``tool`` message for that id whose content is
``{"approved": true|false, "reason"?: "..."}``. Read back, the call stands for the call it asks
about (same id, tool and arguments) and the answer is that call's decision, signed by the
approval id: the server checks it like a decision from any other door. ``session_id`` names the
conversation the approval was issued in, so a client that keeps no session (the default on this
door) resumes the right one just by sending the history back.
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
    session_id: str | None = None


def approval_arguments(
    tool_call_id: str, tool: str | None, arguments: Any, session_id: str | None = None
) -> dict[str, Any]:
    out = {"tool_call_id": tool_call_id, "tool": tool, "arguments": arguments}
    if session_id:
        out["session_id"] = session_id
    return out


def approval_call(arguments: Any, loc: Loc, approval_id: str = "") -> ApprovalCall:
    """The decoded arguments of a ``turnwire_approval`` call. Raises InputError on another shape."""
    if not isinstance(arguments, dict) or not isinstance(arguments.get("tool_call_id"), str):
        raise InputError(
            f"{APPROVAL_TOOL} arguments must be an object with a string tool_call_id",
            loc=loc,
            type="approval_call",
        )
    tool = arguments.get("tool")
    session = arguments.get("session_id")
    return ApprovalCall(
        approval_id,
        arguments["tool_call_id"],
        tool if isinstance(tool, str) else None,
        arguments.get("arguments"),
        session if isinstance(session, str) and session else None,
    )


def approval_session(raw_messages: Any) -> str | None:
    """The ``session_id`` of the last ``turnwire_approval`` call in raw Chat Completions messages:
    the conversation a stateless client resumes by answering an approval."""
    found: str | None = None
    for message in raw_messages if isinstance(raw_messages, list) else ():
        calls = message.get("tool_calls") if isinstance(message, dict) else None
        for call in calls if isinstance(calls, list) else ():
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or function.get("name") != APPROVAL_TOOL:
                continue
            try:
                arguments = orjson.loads(function.get("arguments") or "")
            except (orjson.JSONDecodeError, TypeError):
                continue
            session = arguments.get("session_id") if isinstance(arguments, dict) else None
            if isinstance(session, str) and session:
                found = session
    return found


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
