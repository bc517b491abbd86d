"""The agent runtime: the agent protocol, the turn runner, cancellation, history helpers.

An agent is an async generator function taking a ``TurnContext`` and yielding canonical events
(``turnwire.model``); ``run_turn`` runs it and guarantees a well-formed stream.
"""

from turnwire.runtime.context import Agent, TurnContext, new_trace_id
from turnwire.runtime.runner import (
    CANCEL_GRACE,
    FAILURE_CODE,
    INVALID_EVENT_CODE,
    TurnRun,
    run_turn,
    stop_task,
)
from turnwire.runtime.transcript import Decision, decisions, last_user_text, tool_call_count, user_turns
from turnwire.runtime.validation import validate_event

__all__ = [
    "CANCEL_GRACE",
    "FAILURE_CODE",
    "INVALID_EVENT_CODE",
    "Agent",
    "Decision",
    "TurnContext",
    "TurnRun",
    "decisions",
    "last_user_text",
    "new_trace_id",
    "run_turn",
    "stop_task",
    "tool_call_count",
    "user_turns",
    "validate_event",
]
