"""Property: whatever lifecycle events an agent emits, the stream a client gets is well-formed."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolResult,
)
from turnwire.runtime import TurnContext, run_turn

_ids = st.sampled_from(["a", "b", "c"])
_reasons = st.one_of(st.none(), st.sampled_from(["end_turn", "max_tokens", "tool_use", " "]))
_event = st.one_of(
    st.builds(MessageStart, _ids),
    st.builds(MessageDelta, _ids, st.just("x")),
    st.builds(MessageEnd, _ids),
    st.builds(ThoughtStart, _ids),
    st.builds(ThoughtDelta, _ids, st.just("y")),
    st.builds(ThoughtEnd, _ids),
    st.builds(Done, _reasons),
    st.builds(InteractionRequest, st.just("r1"), st.just("user_approval")),
    st.builds(ToolResult, id=_ids, output=st.just("out")),
    st.builds(ErrorEvent, st.just("live")),
)
_ending = st.sampled_from(["return", "raise", "bad_yield"])

_PHASE = {
    MessageStart: ("m", "start"),
    MessageDelta: ("m", "delta"),
    MessageEnd: ("m", "end"),
    ThoughtStart: ("t", "start"),
    ThoughtDelta: ("t", "delta"),
    ThoughtEnd: ("t", "end"),
}


def _run(events: list[Event], ending: str) -> list[Event]:
    async def agent(_: TurnContext) -> AsyncIterator[Any]:
        for event in events:
            yield event
        if ending == "raise":
            raise RuntimeError("boom")
        if ending == "bad_yield":
            yield object()

    async def main() -> list[Event]:
        return [e async for e in run_turn(agent, TurnContext(trace_id="t" * 32))]

    return asyncio.run(main())


@settings(max_examples=150, deadline=None)
@given(st.lists(_event, max_size=25), _ending)
def test_stream_is_always_well_formed(events: list[Event], ending: str) -> None:
    out = _run(events, ending)
    dones = [e for e in out if isinstance(e, Done)]
    assert len(dones) == 1 and out[-1] is dones[0]
    assert isinstance(dones[0].stop_reason, str) and dones[0].stop_reason.strip()
    open_parts: set[tuple[str, str]] = set()
    for event in out[:-1]:
        phase = _PHASE.get(type(event))
        if phase is None:
            continue
        key = (phase[0], event.id)  # type: ignore[union-attr]
        if phase[1] == "start":
            assert key not in open_parts, f"start of an open part {key}"
            open_parts.add(key)
        else:
            assert key in open_parts, f"{phase[1]} of a part that is not open {key}"
            if phase[1] == "end":
                open_parts.discard(key)
    assert not open_parts, f"parts left open: {open_parts}"
    if ending != "return":
        assert dones[0].stop_reason == "error"


@settings(max_examples=100, deadline=None)
@given(st.lists(_event, max_size=25))
def test_every_delta_the_agent_sent_is_delivered_in_order(events: list[Event]) -> None:
    out = _run(events, "return")
    sent = [(type(e), e.id, e.delta) for e in events if isinstance(e, MessageDelta | ThoughtDelta)]
    got = [(type(e), e.id, e.delta) for e in out if isinstance(e, MessageDelta | ThoughtDelta)]
    assert got == sent
