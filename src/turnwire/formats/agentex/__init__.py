"""The Agentex wire format: TaskMessage contents in and out, TaskMessageUpdate frames for streams."""

from __future__ import annotations

from turnwire.formats import WireFormat
from turnwire.formats.agentex.content import normalize_content
from turnwire.formats.agentex.messages import (
    CONTENT_BLOCKS,
    content_to_message,
    parse_messages,
    render_message,
    render_messages,
)
from turnwire.formats.agentex.updates import TaskUpdateEncoder, event_content

FORMAT = WireFormat(
    "agentex",
    parse_messages,
    render_messages,
    description="Agentex TaskMessageContent (text, reasoning, data, tool_request, tool_response)",
    stored=True,
)

__all__ = [
    "CONTENT_BLOCKS",
    "FORMAT",
    "TaskUpdateEncoder",
    "content_to_message",
    "event_content",
    "normalize_content",
    "parse_messages",
    "render_message",
    "render_messages",
]
