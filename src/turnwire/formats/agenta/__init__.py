"""The Agenta wire format: messages, batch outputs and event frames.

- ``parse``: Agenta messages -> canonical messages (the inbound decision table).
- ``render``: canonical messages -> Agenta messages (the content normalisation rule).
- ``batch``: a folded ``Turn`` -> the batch response's ``data.outputs``.
- ``frames``: canonical events ⇄ Agenta frames ``{"type", "data"}``.
- ``stream``: the stream encoder (one frame per event).
"""

from turnwire.formats import WireFormat, join_answers
from turnwire.formats.agenta.batch import render_batch_messages, render_interaction, render_outputs
from turnwire.formats.agenta.frames import (
    WIRE_KEYS,
    decode_frames,
    encode_events,
    event_to_frame,
    frame_to_event,
)
from turnwire.formats.agenta.parse import parse_messages
from turnwire.formats.agenta.render import render_content, render_messages
from turnwire.formats.agenta.stream import AgentaFrames, stream_encoder

FORMAT = WireFormat(
    "agenta",
    parse_messages,
    render_messages,
    description="Agenta messages {role, content} with content blocks",
    render_turn=lambda turn, pending, info: render_outputs(turn),
    stream_encoder=stream_encoder,
    sse_event_ids=True,
    render_conversation=lambda messages, approvals: render_messages(
        join_answers(messages, frozenset(("assistant",)))
    ),
)

__all__ = [
    "FORMAT",
    "WIRE_KEYS",
    "AgentaFrames",
    "decode_frames",
    "encode_events",
    "event_to_frame",
    "frame_to_event",
    "parse_messages",
    "render_batch_messages",
    "render_content",
    "render_interaction",
    "render_messages",
    "render_outputs",
]
