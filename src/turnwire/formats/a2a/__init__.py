"""The A2A (Agent2Agent) protocol v1.0 format: messages and parts, tasks, task streams.

- ``parse_messages`` / ``render_messages``, ``parse_message`` / ``render_message``: A2A messages ⇄
  canonical (``messages``; the part ⇄ block table in ``parts``)
- ``TaskStreamEncoder``: canonical events → ``StreamResponse`` objects (``stream``)
- ``render_task``, ``task_state``, ``TASK_STATES``: a turn as a ``Task`` (``task``)
- ``legacy``: the v0.3 shapes (``kind``-tagged objects, lower-case states) both ways

The format converts conversations (``turnwire convert``, ``?format=a2a``); turns are served by the
A2A door (``server/doors/a2a``), not the invoke door: A2A answers are tasks, not a message stream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turnwire.formats import WireFormat, join_answers
from turnwire.formats.a2a.messages import (
    ROLE_AGENT,
    ROLE_USER,
    parse_message,
    parse_messages,
    render_message,
    render_messages,
)
from turnwire.formats.a2a.parts import (
    REASONING_MEDIA_TYPE,
    TOOL_CALL_MEDIA_TYPE,
    TOOL_RESULT_MEDIA_TYPE,
    parse_part,
    render_part,
)
from turnwire.formats.a2a.stream import TaskStreamEncoder
from turnwire.formats.a2a.task import (
    COMPLETED,
    INPUT_REQUIRED,
    INTERACTION_MEDIA_TYPE,
    TASK_STATES,
    TERMINAL,
    WORKING,
    render_task,
    task_state,
)
from turnwire.model import Message


def render_conversation(messages: Sequence[Message], approvals: Mapping[str, str]) -> list[dict[str, Any]]:
    """A stored conversation as an A2A client holds its history: each answer one agent message
    (its calls, results and text together), the user's messages between them."""
    return render_messages(join_answers(messages, frozenset(("assistant", "tool"))))


FORMAT = WireFormat(
    "a2a",
    parse_messages,
    render_messages,
    description="A2A v1.0 messages (ROLE_USER/ROLE_AGENT, text/raw/url/data parts)",
    render_conversation=render_conversation,
)

__all__ = [
    "COMPLETED",
    "FORMAT",
    "INPUT_REQUIRED",
    "INTERACTION_MEDIA_TYPE",
    "REASONING_MEDIA_TYPE",
    "ROLE_AGENT",
    "ROLE_USER",
    "TASK_STATES",
    "TERMINAL",
    "TOOL_CALL_MEDIA_TYPE",
    "TOOL_RESULT_MEDIA_TYPE",
    "WORKING",
    "TaskStreamEncoder",
    "parse_message",
    "parse_messages",
    "parse_part",
    "render_message",
    "render_messages",
    "render_part",
    "render_task",
    "task_state",
]
