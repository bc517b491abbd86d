"""The Vercel AI SDK format: UIMessages in and out, and the UI Message Stream.

- ``parse_messages`` / ``continuation_id``: UIMessages → canonical (``inbound``)
- ``render_messages``: canonical → UIMessages (``outbound``)
- ``render_conversation`` / ``render_outputs``: a stored conversation, and a batch turn, as the
  client of the stream holds them, by one renderer (``conversation``; the turn's blocks: ``answer``)
- ``UIStreamEncoder`` / ``encode_sse`` / ``stream_sse``: events → chunks (``stream``) → SSE bytes (``sse``)
- ``ClientVersion``: which AI SDK major the stream targets (``versions``)
- ``STREAM_HEADERS`` / ``BATCH_HEADERS`` (``headers``)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from turnwire.formats import TurnInfo, VersionOption, WireFormat
from turnwire.formats.vercel.conversation import render_conversation, render_outputs
from turnwire.formats.vercel.custom_parts import custom_block
from turnwire.formats.vercel.error_chunks import NO_OUTPUT_TEXT
from turnwire.formats.vercel.finish_reason import FINISH_REASONS, finish_reason
from turnwire.formats.vercel.headers import BATCH_HEADERS, STREAM_HEADERS
from turnwire.formats.vercel.inbound import continuation_id, parse_messages
from turnwire.formats.vercel.outbound import render_messages, with_steps
from turnwire.formats.vercel.sse import encode_sse, stream_sse
from turnwire.formats.vercel.stream import UIStreamEncoder
from turnwire.formats.vercel.versions import ClientVersion
from turnwire.framing import SSE_DONE
from turnwire.model import InteractionRequest, ToolCallBlock, Turn


def stream_encoder(info: TurnInfo) -> UIStreamEncoder:
    """The turn's UI Message Stream encoder; calls in the history are known, so results for them
    (a call answered after an approval) may be streamed."""
    known = [b.id for m in info.history for b in m.content if isinstance(b, ToolCallBlock) and b.id]
    return UIStreamEncoder(
        info.message_id,
        info.session_id,
        info.client_version or ClientVersion.DEFAULT,
        known_tool_call_ids=known,
        trace_id=info.trace_id,
    )


def render_turn(turn: Turn, pending: Sequence[InteractionRequest], info: TurnInfo) -> dict[str, Any]:
    """The batch ``outputs``: the turn as one assistant UIMessage, the one its stream's client holds
    and ``?format=vercel`` reads back (``render_outputs`` of the turn's events)."""
    return render_outputs(
        turn,
        message_id=info.message_id,
        history=info.history,
        pending=pending if turn.pending_interaction is not None else (),
        client_version=info.client_version or ClientVersion.DEFAULT,
        events=info.events if info.events else None,
        session_id=info.session_id,
        trace_id=info.trace_id,
    )


FORMAT = WireFormat(
    "vercel",
    parse_messages,
    render_messages,
    description="Vercel AI SDK UIMessages and UI Message Stream parts",
    render_turn=render_turn,
    stream_encoder=stream_encoder,
    continuation_id=continuation_id,
    batch_headers=BATCH_HEADERS,
    stream_headers=STREAM_HEADERS,
    sse_trailer=SSE_DONE,
    ndjson=False,
    version=VersionOption("x-ai-sdk-version", ClientVersion.parse, "vercel_client_version"),
    render_conversation=render_conversation,
    sources=True,
    custom_block=custom_block,
)

__all__ = [
    "BATCH_HEADERS",
    "FINISH_REASONS",
    "FORMAT",
    "NO_OUTPUT_TEXT",
    "STREAM_HEADERS",
    "ClientVersion",
    "UIStreamEncoder",
    "continuation_id",
    "encode_sse",
    "finish_reason",
    "parse_messages",
    "render_conversation",
    "render_messages",
    "render_outputs",
    "render_turn",
    "stream_encoder",
    "stream_sse",
    "with_steps",
]
