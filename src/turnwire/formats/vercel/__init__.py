"""The Vercel AI SDK format: UIMessages in and out, and the UI Message Stream.

- ``parse_messages`` / ``continuation_id``: UIMessages → canonical (``inbound``)
- ``render_messages`` / ``render_outputs``: canonical → UIMessages (``outbound``)
- ``UIStreamEncoder`` / ``encode_sse`` / ``stream_sse``: events → chunks (``stream``) → SSE bytes (``sse``)
- ``ClientVersion``: which AI SDK major the stream targets (``versions``)
- ``STREAM_HEADERS`` / ``BATCH_HEADERS`` (``headers``)
"""

from __future__ import annotations

from turnwire.formats import WireFormat
from turnwire.formats.vercel.error_chunks import NO_OUTPUT_TEXT, agent_failure_text
from turnwire.formats.vercel.finish_reason import FINISH_REASONS, finish_reason
from turnwire.formats.vercel.headers import BATCH_HEADERS, STREAM_HEADERS
from turnwire.formats.vercel.inbound import continuation_id, parse_messages
from turnwire.formats.vercel.outbound import render_messages, render_outputs
from turnwire.formats.vercel.sse import encode_sse, stream_sse
from turnwire.formats.vercel.stream import UIStreamEncoder
from turnwire.formats.vercel.versions import ClientVersion

FORMAT = WireFormat(
    "vercel",
    parse_messages,
    render_messages,
    description="Vercel AI SDK UIMessages and UI Message Stream parts",
)

__all__ = [
    "BATCH_HEADERS",
    "FINISH_REASONS",
    "FORMAT",
    "NO_OUTPUT_TEXT",
    "STREAM_HEADERS",
    "ClientVersion",
    "UIStreamEncoder",
    "agent_failure_text",
    "continuation_id",
    "encode_sse",
    "finish_reason",
    "parse_messages",
    "render_messages",
    "render_outputs",
    "stream_sse",
]
