"""The body of ``POST /v1/chat/completions`` → what one turn needs.

``model`` names the agent. ``stream`` / ``stream_options.include_usage`` pick the answer's shape.
``user`` and ``metadata`` are kept (a server may key a session on them); ``tools``,
``tool_choice`` and every sampling parameter (``temperature``, ``max_tokens``, ...) are passed to
the agent as they came, under ``parameters``. Unknown keys never fail a request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.errors import InputError
from turnwire.formats.openai.approvals import approval_session
from turnwire.formats.openai.inbound import parse_messages
from turnwire.model import Message

ENVELOPE_KEYS: Final = frozenset({"model", "messages", "stream", "stream_options", "user", "metadata"})


@dataclass(slots=True)
class ChatRequest:
    model: str
    messages: list[Message]
    stream: bool = False
    include_usage: bool = False
    user: str | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    parameters: dict[str, Any] = field(default_factory=dict)
    """Everything else in the body (tools, tool_choice, temperature, ...), as it came."""
    approval_session: str | None = None
    """The session an answered approval was issued in (``approvals.approval_session``)."""


def parse_request(body: Any) -> ChatRequest:
    """A decoded request body → ``ChatRequest``. Raises ``InputError`` naming the field."""
    if not isinstance(body, dict):
        raise InputError("expected a JSON object", loc=())
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InputError("model must be a non-empty string (the agent's name)", loc=("model",))
    if "messages" not in body:
        raise InputError("messages is required", loc=("messages",), type="missing")
    messages = parse_messages(body["messages"])
    stream = body.get("stream", False)
    if stream is not None and not isinstance(stream, bool):
        raise InputError("stream must be true or false", loc=("stream",), type="bool_type")
    options = body.get("stream_options")
    if options is not None and not isinstance(options, dict):
        raise InputError("stream_options must be an object", loc=("stream_options",))
    include_usage = (options or {}).get("include_usage", False)
    if include_usage is not None and not isinstance(include_usage, bool):
        raise InputError("include_usage must be true or false", loc=("stream_options", "include_usage"))
    user = body.get("user")
    if user is not None and not isinstance(user, str):
        raise InputError("user must be a string", loc=("user",))
    metadata = body.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise InputError("metadata must be an object", loc=("metadata",))
    return ChatRequest(
        model=model,
        messages=messages,
        stream=bool(stream),
        include_usage=bool(include_usage),
        user=user or None,
        metadata=metadata or {},
        parameters={k: v for k, v in body.items() if k not in ENVELOPE_KEYS},
        approval_session=approval_session(body["messages"]),
    )
