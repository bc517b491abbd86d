"""The OpenAI Chat Completions format: messages in and out, completions and their chunks.

- ``parse_messages`` / ``render_messages``: Chat Completions messages ⇄ canonical (``inbound`` / ``outbound``)
- ``parse_request`` / ``ChatRequest``: a ``/v1/chat/completions`` body (``request``)
- ``ChatChunkEncoder``: canonical events → ``chat.completion.chunk`` objects (``stream``)
- ``render_completion``: a folded turn → ``chat.completion`` (``completion``)
- ``finish_reason`` / ``FINISH_REASONS``: the stop reason table (``finish_reason``)
- ``error_body`` / ``error_type``: OpenAI's error shape (``errors``)
- ``APPROVAL_TOOL``: how an approval pause reaches an OpenAI client (``approvals``)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from turnwire.formats import WireFormat, join_answers
from turnwire.formats.openai.approvals import APPROVAL_TOOL, APPROVAL_TOOL_DESCRIPTION
from turnwire.formats.openai.client_calls import EXECUTED_KEY
from turnwire.formats.openai.completion import render_completion
from turnwire.formats.openai.errors import error_body, error_type
from turnwire.formats.openai.finish_reason import FINISH_REASONS, finish_reason
from turnwire.formats.openai.inbound import parse_messages
from turnwire.formats.openai.outbound import render_messages
from turnwire.formats.openai.request import ChatRequest, parse_request
from turnwire.formats.openai.stream import ChatChunkEncoder, usage_body
from turnwire.model import Message


def render_conversation(messages: Sequence[Message], approvals: Mapping[str, str]) -> list[dict[str, Any]]:
    """What an OpenAI client holds after those turns: each answer one assistant message (its
    reasoning and text together, as the completion carried them), tool results after their calls."""
    return render_messages(join_answers(messages, frozenset(("assistant", "tool"))))


FORMAT = WireFormat(
    "openai",
    parse_messages,
    render_messages,
    description="OpenAI Chat Completions messages (system/user/assistant/tool)",
    render_conversation=render_conversation,
)

STREAM_HEADERS = {"cache-control": "no-cache", "x-accel-buffering": "no"}
"""Headers of a streamed completion (SSE ending ``data: [DONE]``)."""

__all__ = [
    "APPROVAL_TOOL",
    "APPROVAL_TOOL_DESCRIPTION",
    "EXECUTED_KEY",
    "FINISH_REASONS",
    "FORMAT",
    "STREAM_HEADERS",
    "ChatChunkEncoder",
    "ChatRequest",
    "error_body",
    "error_type",
    "finish_reason",
    "parse_messages",
    "parse_request",
    "render_completion",
    "render_messages",
    "usage_body",
]
