"""The adapter's turn side: a stream encoder for a turn, and a folded turn as a batch answer.

``TurnInfo.session_id`` is the AG-UI thread, ``TurnInfo.run_id`` the run (the AG-UI door passes
the client's ``runId``; other doors none: the answer's message id names the run) and
``TurnInfo.message_id`` the turn's stored message id, which names the run's messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from turnwire.formats import TurnInfo, encode_stream
from turnwire.formats.agui.assembled import assembled
from turnwire.formats.agui.interrupts import interrupt_of, resume_answers
from turnwire.formats.agui.outbound import render_messages
from turnwire.formats.agui.stream import AgUiStreamEncoder
from turnwire.interactions import tool_call_id_of
from turnwire.model import InteractionKind, InteractionRequest, ToolCallBlock, Turn


def stream_encoder(info: TurnInfo) -> AgUiStreamEncoder:
    """The run's encoder; calls in the history are known, so a resumed call's result may be sent;
    the answers the run took from ``resume`` go to the client in ``RUN_STARTED.input``."""
    known = [b.id for m in info.history for b in m.content if isinstance(b, ToolCallBlock) and b.id]
    return AgUiStreamEncoder(
        info.session_id,
        info.run_id or info.message_id,
        message_id=info.message_id,
        # As the stored conversation reads them back: the answer, not its interrupt's metadata.
        input_messages=render_messages([replace(m, metadata=None) for m in resume_answers(info.history)]),
        known_tool_call_ids=known,
        trace_id=info.trace_id,
    )


def render_turn(turn: Turn, pending: Sequence[InteractionRequest], info: TurnInfo) -> dict[str, Any]:
    """``{"messages": [AG-UI messages], "stop_reason"?, "interrupts"?, "pendingToolCallIds"?}``:
    what the stream's ``RUN_FINISHED`` would say, with the messages a client assembles from the
    run's stream (``info.events``; without them, the folded turn's messages)."""
    if info.events:
        # What a streaming client holds after this run (ids included), as the history reads back.
        messages = assembled(encode_stream(info.events, stream_encoder(info)))
    else:
        messages = render_messages(turn.messages)
    outputs: dict[str, Any] = {"messages": messages}
    if turn.stop_reason is not None:
        outputs["stop_reason"] = turn.stop_reason
    if turn.pending_interaction is not None:
        requests = list(pending) or [turn.pending_interaction]
        interrupts = [i for i in (interrupt_of(r) for r in requests) if i is not None]
        if interrupts:
            outputs["interrupts"] = interrupts
        client_calls = [
            call_id
            for r in requests
            if r.kind == InteractionKind.CLIENT_TOOL and (call_id := tool_call_id_of(r)) is not None
        ]
        if client_calls:
            outputs["pendingToolCallIds"] = client_calls
    return outputs
