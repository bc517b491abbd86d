"""The AG-UI format (Agent-User Interaction protocol): messages in and out, and the event stream.

- ``parse_messages``: AG-UI messages → canonical (``inbound``)
- ``render_messages``: canonical → AG-UI messages (``outbound``); ``render_conversation``: stored ones
- ``parse_run_input`` / ``RunInput``: a ``RunAgentInput`` body, ``resume[]`` answers included (``run_input``)
- ``interrupt_of`` / ``parse_resume``: interaction requests ⇄ interrupts and their answers (``interrupts``)
- ``AgUiStreamEncoder``: canonical events → AG-UI events (``stream``); SSE framing is the server's
- ``subagent_run_id``: a sub-agent invocation's ``subagentRunId`` (``agent_scopes``)
- ``stream_encoder`` / ``render_turn``: the adapter's turn side (``turn``)
- ``STREAM_HEADERS`` / ``BATCH_HEADERS`` (``headers``)
"""

from __future__ import annotations

from turnwire.formats import WireFormat
from turnwire.formats.agui.agent_scopes import subagent_run_id
from turnwire.formats.agui.conversation import render_conversation
from turnwire.formats.agui.headers import BATCH_HEADERS, STREAM_HEADERS
from turnwire.formats.agui.inbound import parse_messages
from turnwire.formats.agui.interrupts import interrupt_of, parse_resume, split_interrupt_id
from turnwire.formats.agui.outbound import render_messages
from turnwire.formats.agui.run_input import RunInput, parse_run_input
from turnwire.formats.agui.stream import AgUiStreamEncoder
from turnwire.formats.agui.turn import render_turn, stream_encoder
from turnwire.framing import SSE_MEDIA_TYPE

MEDIA_TYPE = SSE_MEDIA_TYPE
"""AG-UI events travel as SSE ``data:`` lines (the protobuf transport is not served)."""

FORMAT = WireFormat(
    "agui",
    parse_messages,
    render_messages,
    description="AG-UI (Agent-User Interaction protocol) messages and events",
    render_turn=render_turn,
    stream_encoder=stream_encoder,
    batch_headers=BATCH_HEADERS,
    stream_headers=STREAM_HEADERS,
    render_conversation=render_conversation,
)

__all__ = [
    "BATCH_HEADERS",
    "FORMAT",
    "MEDIA_TYPE",
    "STREAM_HEADERS",
    "AgUiStreamEncoder",
    "RunInput",
    "interrupt_of",
    "parse_messages",
    "parse_resume",
    "parse_run_input",
    "render_conversation",
    "render_messages",
    "render_turn",
    "split_interrupt_id",
    "subagent_run_id",
]
