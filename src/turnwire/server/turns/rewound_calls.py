"""What the stored conversation's other branches recorded for a tool call asked again.

A client that sends a shorter history than the stored one rewinds the conversation; when the agent
then asks the very same call again (same call id, tool and input), its approval token is the same
token as before, already claimed. The result of that earlier run sits on the branch the rewind left,
which the current conversation no longer shows: this module reads every stored message of the task
(rewound ones too) to find it, so the re-asked call gets the recorded result instead of waiting
forever for one on its own branch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from turnwire.conversations.planning import marker_type, to_messages
from turnwire.model import Message, ToolCallBlock, ToolResultBlock
from turnwire.runtime.approvals import input_digest
from turnwire.runtime.transcript import Decision
from turnwire.store.base import Store

PAGE: Final = 10_000


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the messages hold for one decided call."""

    result: ToolResultBlock | None = None
    """The call's real result (not a decision), after a call with the decision's tool and input."""
    decided: bool = False
    """Whether they hold a decision carrying the same token."""


def recorded(messages: Sequence[Message], decision: Decision) -> Recorded:
    """The result and the decision that ``messages`` (oldest first, branches in the order they
    were written) hold for ``decision``'s call.

    A call id may be reused by another call (another input, another branch): a result counts only
    when the latest call with its id before it is the decided one (same tool, same input).
    """
    call_id = decision.tool_call_id
    wanted = input_digest(decision.input)
    matching = False
    decided = False
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolCallBlock) and block.id == call_id:
                matching = block.name == decision.tool_name and input_digest(block.input) == wanted
            elif isinstance(block, ToolResultBlock) and block.id == call_id and matching:
                output = block.output
                if isinstance(output, dict) and isinstance(output.get("approved"), bool):
                    decided = decided or output.get("interactionToken") == decision.interaction_token
                else:
                    return Recorded(block, decided)
    return Recorded(None, decided)


async def every_branch(store: Store, task_id: str) -> list[Message]:
    """Every stored message of the task, rewound ones included, oldest first (markers left out)."""
    records: list[dict] = []
    while True:
        page = await store.list_messages(task_id, limit=PAGE, offset=len(records), descending=False)
        records.extend(page)
        if len(page) < PAGE:
            break
    return to_messages(r for r in records if marker_type(r["content"]) is None)
