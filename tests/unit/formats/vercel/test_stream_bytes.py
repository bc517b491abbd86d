"""The exact SSE bytes of a UI Message Stream: pinned by hand from the protocol, and the encoder's
fast paths (one-chunk frames, one handler per delta class) checked against the general path."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnwire.formats.vercel import UIStreamEncoder, encode_sse, stream_sse
from turnwire.model import (
    Done,
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
)

EXPECTED = (
    'data: {"type":"start","messageId":"m-1"}\n\n'
    'data: {"type":"start-step"}\n\n'
    'data: {"type":"reasoning-start","id":"r"}\n\n'
    'data: {"type":"reasoning-delta","id":"r","delta":"think"}\n\n'
    'data: {"type":"reasoning-end","id":"r"}\n\n'
    'data: {"type":"text-start","id":"t1"}\n\n'
    'data: {"type":"text-delta","id":"t1","delta":"Hé👋"}\n\n'
    'data: {"type":"text-end","id":"t1"}\n\n'
    'data: {"type":"tool-input-start","toolCallId":"c1","toolName":"ls"}\n\n'
    'data: {"type":"tool-input-available","toolCallId":"c1","toolName":"ls","input":{"p":"/"}}\n\n'
    'data: {"type":"tool-output-available","toolCallId":"c1","output":"ok"}\n\n'
    'data: {"type":"finish-step"}\n\n'
    'data: {"type":"start-step"}\n\n'
    'data: {"type":"text-start","id":"t2"}\n\n'
    'data: {"type":"text-delta","id":"t2","delta":"done"}\n\n'
    'data: {"type":"text-end","id":"t2"}\n\n'
    'data: {"type":"finish-step"}\n\n'
    'data: {"type":"finish","finishReason":"stop"}\n\n'
    "data: [DONE]\n\n"
).encode()


def turn() -> list[Event]:
    return [
        ThoughtStart("r"),
        ThoughtDelta("r", "think"),
        ThoughtEnd("r"),
        MessageDelta("t1", "Hé👋"),  # never opened: the encoder opens it first
        MessageEnd("t1"),
        ToolCall(id="c1", name="ls", input={"p": "/"}),
        ToolResult(id="c1", output="ok"),
        MessageStart("t2"),
        MessageDelta("t2", "done"),
        Done(stop_reason="end_turn"),
    ]


def test_a_mixed_turn_streams_exactly_the_protocol_bytes() -> None:
    assert b"".join(stream_sse(turn(), UIStreamEncoder("m-1"))) == EXPECTED


def test_encode_sse_of_one_chunk_and_of_several_frames_each_chunk() -> None:
    one = {"type": "text-delta", "id": "t", "delta": "x"}
    assert encode_sse([one]) == b'data: {"type":"text-delta","id":"t","delta":"x"}\n\n'
    assert encode_sse(iter([one])) == encode_sse([one])
    assert encode_sse([one], done=True) == encode_sse([one]) + b"data: [DONE]\n\n"
    assert encode_sse([one, {"type": "finish"}]) == encode_sse([one]) + b'data: {"type":"finish"}\n\n'
    assert encode_sse([]) == b""


def _frame(chunk: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(chunk, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


_ids = st.sampled_from(["a", "b"])
_text = st.text(max_size=4)
_events = st.lists(
    st.one_of(
        st.builds(MessageStart, _ids),
        st.builds(MessageDelta, _ids, _text),
        st.builds(MessageEnd, _ids),
        st.builds(ThoughtStart, _ids),
        st.builds(ThoughtDelta, _ids, _text),
        st.builds(ThoughtEnd, _ids),
        st.builds(ToolCall, id=_ids, name=st.just("f"), input=st.just({"k": 1})),
        st.builds(ToolResult, id=_ids, output=_text),
    ),
    max_size=25,
)


@settings(max_examples=200, deadline=None)
@given(_events)
def test_stream_sse_bytes_are_the_chunks_framed_one_by_one(events: list[Event]) -> None:
    reference = UIStreamEncoder("m")
    chunks = reference.start()
    for event in events:
        chunks += reference.encode(event)
    chunks += reference.finish()
    expected = b"".join(_frame(c) for c in chunks) + b"data: [DONE]\n\n"
    assert b"".join(stream_sse(events, UIStreamEncoder("m"))) == expected
