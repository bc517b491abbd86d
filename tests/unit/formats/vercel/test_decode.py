"""Reading a UI Message Stream back into canonical events: what the encoder wrote, the decoder reads.

The round trip (events → UIStreamEncoder chunks → UIStreamDecoder events → fold) keeps every text,
thought, tool call, tool result, approval request and stop reason of every scenario.
"""

from __future__ import annotations

import pytest

from scenarios import SCENARIOS
from turnwire.fold import fold
from turnwire.formats.vercel import ClientVersion, UIStreamEncoder
from turnwire.formats.vercel.decode import UIStreamDecoder, decode_chunks
from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ReasoningBlock,
    TextBlock,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Usage,
)


def _chunks(events: list[Event], version: ClientVersion = ClientVersion.DEFAULT) -> list[dict]:
    enc = UIStreamEncoder(message_id="msg-1", session_id="s1", client_version=version)
    out = enc.start()
    stop = None
    for event in events:
        if isinstance(event, Done):
            stop = event.stop_reason
        out.extend(enc.encode(event))
    out.extend(enc.finish(stop))
    return out


def _summary(events: list[Event]) -> list[tuple]:
    """What a reader of the turn sees: texts, thoughts, tool calls/results (ids, names, values)."""
    turn = fold(events, full=True)
    out: list[tuple] = []
    for msg in turn.messages:
        for b in msg.content:
            if isinstance(b, TextBlock):
                out.append(("text", b.text))
            elif isinstance(b, ReasoningBlock):
                out.append(("thought", b.text))
            elif isinstance(b, ToolCallBlock):
                out.append(("call", b.id, b.input))
            elif isinstance(b, ToolResultBlock):
                out.append(("result", b.id, b.is_error is True))
    return out


def _expected(chunks: list[dict]) -> list[tuple]:
    """What the chunks say, read straight off them: each text/reasoning part's joined deltas, each
    call's id and input, each result's id and whether it failed."""
    out: list[tuple] = []
    open_parts: dict[str, int] = {}
    for c in chunks:
        kind = c["type"]
        if kind in ("text-start", "reasoning-start"):
            open_parts[c["id"]] = len(out)
            out.append(("text" if kind == "text-start" else "thought", ""))
        elif kind in ("text-delta", "reasoning-delta"):
            i = open_parts[c["id"]]
            out[i] = (out[i][0], out[i][1] + c["delta"])
        elif kind == "tool-input-available":
            out.append(("call", c["toolCallId"], c["input"]))
        elif kind.startswith("tool-output-"):
            out.append(("result", c["toolCallId"], kind != "tool-output-available"))
    return out


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_scenario_decodes_to_what_its_chunks_say(name: str) -> None:
    chunks = _chunks(SCENARIOS[name])
    decoded = decode_chunks(chunks)
    want = [s for s in _expected(chunks) if s[0] not in ("text", "thought") or s[1]]
    got = [s for s in _summary(decoded) if s[0] not in ("text", "thought") or s[1]]
    dedup: list[tuple] = []
    for s in want:  # a refreshed call is one call in a folded turn
        if s[0] == "call" and any(d[0] == "call" and d[1] == s[1] for d in dedup):
            dedup = [(*d[:2], s[2]) if d[0] == "call" and d[1] == s[1] else d for d in dedup]
        else:
            dedup.append(s)
    assert sorted(map(repr, got)) == sorted(map(repr, dedup))
    finish = chunks[-1]
    done = decoded[-1]
    assert isinstance(done, Done)
    if finish.get("finishReason") == "stop":
        assert done.stop_reason == "end_turn"
    if finish.get("finishReason") == "error":
        assert done.stop_reason == "error"


def test_stream_chunks_map_to_events() -> None:
    dec = UIStreamDecoder()
    chunks = [
        {"type": "start", "messageId": "msg-9", "messageMetadata": {"sessionId": "s9"}},
        {"type": "start-step"},
        {"type": "text-start", "id": "t1"},
        {"type": "text-delta", "id": "t1", "delta": "hi"},
        {"type": "text-end", "id": "t1"},
        {"type": "tool-input-start", "toolCallId": "c1", "toolName": "delete_file"},
        {
            "type": "tool-input-available",
            "toolCallId": "c1",
            "toolName": "delete_file",
            "input": {"path": "a"},
        },
        {"type": "tool-approval-request", "approvalId": "ap_1", "toolCallId": "c1"},
        {"type": "finish-step"},
        {
            "type": "finish",
            "finishReason": "other",
            "messageMetadata": {"usage": {"input": 3}, "traceId": "t"},
        },
    ]
    events = [e for c in chunks for e in dec.decode(c)]
    assert dec.message_id == "msg-9" and dec.session_id == "s9"
    assert events == [
        MessageStart("t1"),
        MessageDelta("t1", "hi"),
        MessageEnd("t1"),
        ToolCall(id="c1", name="delete_file", input={"path": "a"}),
        InteractionRequest(
            "ap_1",
            "user_approval",
            {"toolCallId": "c1", "toolName": "delete_file", "toolCall": {"rawInput": {"path": "a"}}},
        ),
        Usage(input=3),
        Done(stop_reason="paused", trace_id="t"),
    ]


@pytest.mark.parametrize(
    ("chunk", "events"),
    [
        (
            {"type": "tool-output-error", "toolCallId": "c", "errorText": "bad"},
            [ToolResult("c", "bad", is_error=True)],
        ),
        ({"type": "tool-output-denied", "toolCallId": "c"}, [ToolResult("c", is_error=True, denied=True)]),
        ({"type": "error", "errorText": "boom"}, [ErrorEvent("boom")]),
        ({"type": "finish", "finishReason": "stop"}, [Done("end_turn")]),
        ({"type": "finish", "finishReason": "other"}, [Done("cancelled")]),
        ({"type": "finish"}, [Done(None)]),
        (
            {"type": "data-input-request", "id": "q1", "data": {"prompt": "?"}},
            [InteractionRequest("q1", "user_input", {"prompt": "?"})],
        ),
        ({"type": "something-new", "x": 1}, []),
        ("not a chunk", []),
    ],
)
def test_single_chunks(chunk: object, events: list[Event]) -> None:
    assert UIStreamDecoder().decode(chunk) == events


def test_v5_approvals_arrive_as_interaction_requests() -> None:
    decoded = decode_chunks(_chunks(SCENARIOS["interaction_paused"], ClientVersion.V5))
    requests = [(e.id, e.kind) for e in decoded if isinstance(e, InteractionRequest)]
    assert requests == [("perm_0", "user_input"), ("perm_1", "user_approval")]
    assert decoded[-1] == Done("paused", trace_id=decoded[-1].trace_id)


def test_a_call_told_again_before_its_approval_is_one_tool_call() -> None:
    """The encoder repeats a gated call's ``tool-input-available`` before ``tool-approval-request``
    (with the approval's resolved name); read back, that is still one ``ToolCall``."""
    gate = InteractionRequest(
        "ap_1",
        "user_approval",
        {
            "toolCallId": "c1",
            "toolName": "delete_file",
            "toolCall": {"toolCallId": "c1", "name": "delete_file", "rawInput": {"path": "a"}},
        },
    )
    chunks = _chunks([ToolCall(id="c1", name="delete_file", input={"path": "a"}), gate, Done("paused")])
    told = [c for c in chunks if c["type"] == "tool-input-available"]
    assert len(told) == 2  # what the wire sends (unchanged)
    calls = [e for e in decode_chunks(chunks) if isinstance(e, ToolCall)]
    assert calls == [ToolCall(id="c1", name="delete_file", input={"path": "a"})]


def test_a_call_refreshed_with_new_input_is_told_again() -> None:
    def told(value: dict) -> dict:
        return {"type": "tool-input-available", "toolCallId": "c1", "toolName": "t", "input": value}

    calls = decode_chunks([told({"a": 1}), told({"a": 1}), told({"a": 2})])
    assert calls == [ToolCall(id="c1", name="t", input={"a": 1}), ToolCall(id="c1", name="t", input={"a": 2})]


def test_sources_and_a_reasoning_file_read_back_as_the_events_that_made_them() -> None:
    from turnwire.model import FileEvent, SourceDocument, SourceUrl

    events: list[Event] = [
        SourceUrl("s1", "https://example.com", "Example"),
        SourceDocument("s2", "application/pdf", "Doc", "d.pdf"),
        FileEvent("https://example.com/r.png", "image/png", reasoning=True),
    ]
    decoder = UIStreamDecoder()
    got = [e for c in _chunks(events, ClientVersion.V7) for e in decoder.decode(c)]
    assert [e for e in got if not isinstance(e, Done)] == events
