"""``RunAgentInput`` (the body an AG-UI client POSTs) → what one turn needs.

``threadId`` is the session, ``runId`` names the run. The conversation is ``messages`` followed by
the answers in ``resume`` (approval decisions as tool results, answers as user messages). The
tools the client offers, its ``state``, ``context`` and ``forwardedProps`` are kept as given for
the agent; turnwire itself does not interpret them. Keys are camelCase on the wire; the snake_case
spellings the Python SDK also accepts are read too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from turnwire.errors import InputError
from turnwire.formats.agui.inbound import parse_messages
from turnwire.formats.agui.interrupts import parse_resume
from turnwire.model import Message


@dataclass(slots=True)
class RunInput:
    thread_id: str
    run_id: str
    messages: list[Message]
    """``messages`` then the ``resume`` answers, canonical."""
    parent_run_id: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    state: Any = None
    context: list[Any] = field(default_factory=list)
    forwarded_props: Any = None
    resumed: bool = False
    """Whether the input carried a non-empty ``resume``."""
    resume_from: int = 0
    """Index in ``messages`` of the first message made from ``resume`` (= how many the client sent)."""

    @property
    def tool_names(self) -> list[str]:
        """Names of the tools the client offers (frontend tools the agent may call)."""
        return [t["name"] for t in self.tools if isinstance(t.get("name"), str)]


def _get(body: dict[str, Any], camel: str, snake: str) -> Any:
    return body[camel] if camel in body else body.get(snake)


def _id(body: dict[str, Any], camel: str, snake: str) -> str:
    """A required id: a non-empty string."""
    value = _get(body, camel, snake)
    if not isinstance(value, str) or not value:
        raise InputError(f"{camel} must be a non-empty string", loc=(camel,))
    return value


def _optional_id(body: dict[str, Any], camel: str, snake: str) -> str | None:
    """An id that may be absent (``None``); given, it must be a non-empty string."""
    return None if _get(body, camel, snake) is None else _id(body, camel, snake)


def parse_run_input(body: Any) -> RunInput:
    """A decoded ``RunAgentInput`` → ``RunInput``. Raises ``InputError`` naming the field
    (``loc`` relative to the body: ``("messages", 2, "toolCallId")``, ``("resume", 0, "status")``)."""
    if not isinstance(body, dict):
        raise InputError("expected a JSON object (RunAgentInput)", loc=())
    thread_id = _id(body, "threadId", "thread_id")
    run_id = _id(body, "runId", "run_id")
    raw_messages = body.get("messages", [])
    messages = parse_messages(raw_messages)
    resume = body.get("resume")
    answers = parse_resume(resume)
    tools = body.get("tools") or []
    if not isinstance(tools, list) or not all(isinstance(t, dict) for t in tools):
        raise InputError("tools must be a list of objects", loc=("tools",))
    context = body.get("context") or []
    if not isinstance(context, list):
        raise InputError("context must be a list", loc=("context",))
    return RunInput(
        thread_id=thread_id,
        run_id=run_id,
        messages=messages + answers,
        parent_run_id=_optional_id(body, "parentRunId", "parent_run_id"),
        tools=tools,
        state=body.get("state"),
        context=context,
        forwarded_props=_get(body, "forwardedProps", "forwarded_props"),
        resumed=bool(resume),
        resume_from=len(messages),
    )
