"""What an agent receives for one turn, and the shape an agent has."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from turnwire.model import Event, Message
from turnwire.runtime.ids import scoped_decisions
from turnwire.runtime.transcript import Decision, last_user_text


def new_trace_id() -> str:
    """A fresh 32-hex-digit trace id (the width of a W3C trace id)."""
    return uuid.uuid4().hex


@dataclass(slots=True)
class TurnContext:
    """Everything an agent may read for one turn.

    ``messages`` is the canonical history, oldest first; the last one is usually the new user
    message, or a tool result carrying an approval decision when the client resumes a paused turn.
    New fields are only ever added with defaults, so agents written today keep working.
    """

    messages: list[Message] = field(default_factory=list)
    session_id: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)
    trace_id: str = field(default_factory=new_trace_id)

    def last_user_text(self) -> str:
        """The text of the last user message (see ``history.last_user_text``)."""
        return last_user_text(self.messages)

    def decisions(self) -> dict[str, Decision]:
        """Approval decisions found in the history, by tool call id (see ``history.decisions``).

        A call the runner renamed (``call_1~2``, see ``ids``) is also found under the id the
        agent gave it, for the newest call of that id: an agent that reuses ``call_1`` every turn
        reads the decision about its current call, never an older one's."""
        return scoped_decisions(self.messages)


Agent: TypeAlias = Callable[[TurnContext], AsyncIterator[Event]]
"""An agent: usually an ``async def`` generator function that yields canonical events.

It may also be any callable returning an async iterator. It must not yield ``Done`` to end the
turn — returning ends it — but may yield ``Done(stop_reason=...)`` to say *why* it stopped.
"""
