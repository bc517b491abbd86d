"""Reading a conversation history: the last user text, tool calls, approval decisions.

Agents resume cold from the full history (no warm state is ever required), so everything a
resumed turn needs — which calls exist, which were approved — is derived here from messages alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from turnwire.model import Message, Role, TextBlock, ToolCallBlock, ToolResultBlock


def last_user_text(messages: Sequence[Message]) -> str:
    """The text blocks of the last ``user`` message joined with ``""`` and trimmed; ``""`` if none."""
    for message in reversed(messages):
        if message.role == Role.USER:
            return "".join(b.text for b in message.content if isinstance(b, TextBlock)).strip()
    return ""


def user_turns(messages: Sequence[Message]) -> int:
    """How many ``user`` messages the history holds."""
    return sum(1 for m in messages if m.role == Role.USER)


def tool_call_count(messages: Sequence[Message]) -> int:
    """How many distinct tool call ids appear in tool-call blocks (id-less calls count each)."""
    seen: set[str] = set()
    anonymous = 0
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolCallBlock):
                if block.id is None:
                    anonymous += 1
                else:
                    seen.add(block.id)
    return len(seen) + anonymous


@dataclass(frozen=True, slots=True)
class Decision:
    """A client's answer to an approval request, read back from the history.

    ``tool_name`` and ``input`` come from the matching tool-call block (``None`` when the history
    has no call with that id); ``index`` is the position of the message holding the decision.
    """

    tool_call_id: str
    approved: bool
    interaction_token: str | None = None
    tool_name: str | None = None
    input: Any = None
    index: int = 0


def decisions(messages: Sequence[Message]) -> dict[str, Decision]:
    """Approval decisions in the history, keyed by tool call id, in the order they appear.

    A decision is a tool-result block whose ``output`` is an object with a boolean ``approved``
    (what both the Agenta and the Vercel inbound paths produce). Any other tool result is not a
    decision. A later decision for the same id replaces an earlier one.
    """
    # Calls first: a client may replay a decision before (or without) its call.
    calls: dict[str, ToolCallBlock] = {}
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolCallBlock) and block.id is not None:
                calls.setdefault(block.id, block)
    found: dict[str, Decision] = {}
    for index, message in enumerate(messages):
        for block in message.content:
            if not isinstance(block, ToolResultBlock) or not block.id:
                continue
            output = block.output
            if not isinstance(output, dict) or not isinstance(output.get("approved"), bool):
                continue
            token = output.get("interactionToken")
            call = calls.get(block.id)
            found.pop(block.id, None)
            found[block.id] = Decision(
                tool_call_id=block.id,
                approved=output["approved"],
                interaction_token=token if isinstance(token, str) and token else None,
                tool_name=call.name if call is not None else None,
                input=call.input if call is not None else None,
                index=index,
            )
    return found
