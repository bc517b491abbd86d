"""The server's streamed body from a real run: same bytes as framing the events one by one,
buffered events coalesced into one body without holding any frame back, keepalive only on silence."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest

from turnwire.formats.agenta import AgentaFrames, event_to_frame
from turnwire.formats.vercel import UIStreamEncoder, stream_sse
from turnwire.framing import SSE_DONE, SSE_KEEPALIVE, SSE_KEEPALIVE_LINE, ndjson_frame, sse_frame
from turnwire.model import Done, Event, MessageDelta, MessageEnd, MessageStart, ToolCall, ToolResult, Usage
from turnwire.runtime import TurnContext, run_turn
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.streaming import stream_body

pytestmark = pytest.mark.anyio


def ctx() -> TurnContext:
    return TurnContext(messages=[], session_id="s", trace_id="t1")


def busy_turn(n: int = 300) -> list[Event]:
    events: list[Event] = [MessageStart("m")]
    events += [MessageDelta("m", f"w{i} ") for i in range(n)]
    events += [
        MessageEnd("m"),
        ToolCall(id="c", name="ls", input={"p": "/"}),
        ToolResult(id="c", output="ok"),
    ]
    return [*events, Usage(input=3, output=4), Done(stop_reason="end_turn")]


def agent_of(events: list[Event], pauses: dict[int, float] | None = None) -> Any:
    async def agent(_: TurnContext) -> AsyncIterator[Event]:
        for i, event in enumerate(events):
            if pauses and i in pauses:
                await asyncio.sleep(pauses[i])
            yield event

    return agent


async def delivered(events: list[Event]) -> list[Event]:
    """What the runner delivers for ``events``, read one by one."""
    return [e async for e in run_turn(agent_of(events), ctx())]


async def bodies(stream: AsyncIterator[bytes]) -> list[bytes]:
    return [b async for b in stream]


class _BareRun:
    """An ``EventRun`` that is only its events: no stop reason, ``pull`` never waits."""

    stop_reason = None

    def __init__(self, events: list[Event]) -> None:
        self._it = iter(events)

    async def pull(self, timeout: float | None) -> Event:
        for event in self._it:
            return event
        raise StopAsyncIteration

    async def aclose(self) -> None:
        return None


async def test_a_run_ending_without_a_stop_reason_ends_the_stream_cleanly() -> None:
    events = busy_turn(5)[:-1]  # no Done: the run just ends
    out = await bodies(stream_body(_BareRun(events), AgentaFrames(), Transport.SSE))
    assert b"".join(out) == b"".join(sse_frame(event_to_frame(e)) for e in events)


@pytest.mark.parametrize("keepalive", [None, 15.0])
async def test_agenta_sse_bytes_equal_framing_each_delivered_event(keepalive: float | None) -> None:
    expected = b"".join(sse_frame(event_to_frame(e)) for e in await delivered(busy_turn()))
    out = await bodies(
        stream_body(
            run_turn(agent_of(busy_turn()), ctx()), AgentaFrames(), Transport.SSE, keepalive=keepalive
        )
    )
    assert b"".join(out) == expected


async def test_numbered_agenta_sse_is_the_same_events_each_after_its_id() -> None:
    """With ``event_ids`` every event gets ``id: <prefix>:<n>`` before its unchanged data line."""
    delivered_events = await delivered(busy_turn())
    expected = b"".join(
        f"id: t1:{n}\n".encode() + sse_frame(event_to_frame(e)) for n, e in enumerate(delivered_events, 1)
    )
    out = await bodies(
        stream_body(run_turn(agent_of(busy_turn()), ctx()), AgentaFrames(), Transport.SSE, event_ids="t1")
    )
    assert b"".join(out) == expected
    # NDJSON has no field for it: the option changes nothing there.
    ndjson = await bodies(
        stream_body(run_turn(agent_of(busy_turn()), ctx()), AgentaFrames(), Transport.NDJSON, event_ids="t1")
    )
    assert b"".join(ndjson) == b"".join(ndjson_frame(event_to_frame(e)) for e in delivered_events)


async def test_agenta_ndjson_bytes_equal_framing_each_delivered_event() -> None:
    expected = b"".join(ndjson_frame(event_to_frame(e)) for e in await delivered(busy_turn()))
    out = await bodies(stream_body(run_turn(agent_of(busy_turn()), ctx()), AgentaFrames(), Transport.NDJSON))
    assert b"".join(out) == expected


@pytest.mark.parametrize("keepalive", [None, 15.0])
async def test_vercel_sse_bytes_equal_the_sync_encoder(keepalive: float | None) -> None:
    expected = b"".join(stream_sse(await delivered(busy_turn()), UIStreamEncoder("m-1", "s")))
    stream = stream_body(
        run_turn(agent_of(busy_turn()), ctx()),
        UIStreamEncoder("m-1", "s"),
        Transport.SSE,
        keepalive=keepalive,
        trailer=SSE_DONE,
    )
    assert b"".join(await bodies(stream)) == expected


async def test_events_already_produced_go_out_in_one_body() -> None:
    out = await bodies(
        stream_body(run_turn(agent_of(busy_turn()), ctx()), AgentaFrames(), Transport.SSE, keepalive=None)
    )
    frames = b"".join(out).count(b"\n\n")
    assert frames == len(busy_turn())
    # The agent never waits, so the runner's buffer (64) fills between writes: far fewer bodies.
    assert len(out) <= frames // 20


async def test_a_frame_is_not_held_back_while_the_agent_is_busy() -> None:
    release = asyncio.Event()

    async def agent(_: TurnContext) -> AsyncIterator[Event]:
        yield MessageStart("m")
        yield MessageDelta("m", "first")
        await release.wait()
        yield MessageDelta("m", "second")
        yield MessageEnd("m")

    stream = stream_body(run_turn(agent, ctx()), AgentaFrames(), Transport.SSE, keepalive=15.0)
    seen = b""
    while b"first" not in seen:
        seen += await asyncio.wait_for(anext(stream), 1)
    assert b"second" not in seen
    release.set()
    rest = b"".join([b async for b in stream])
    assert b"second" in rest and rest.endswith(
        b'"type":"done","data":{"stopReason":"end_turn","traceId":"t1"}}\n\n'
    )


async def test_keepalive_marks_each_interval_of_silence_from_a_run() -> None:
    events = [MessageStart("m"), MessageDelta("m", "a"), MessageEnd("m")]
    out = await bodies(
        stream_body(
            run_turn(agent_of(events, {1: 0.35}), ctx()), AgentaFrames(), Transport.SSE, keepalive=0.1
        )
    )
    marks = [i for i, b in enumerate(out) if b == SSE_KEEPALIVE]
    assert len(marks) == 3
    body = b"".join(b for b in out if b != SSE_KEEPALIVE)
    assert body == b"".join(sse_frame(event_to_frame(e)) for e in await delivered(events))
    # all three between the start frame and the delta
    first_delta = next(i for i, b in enumerate(out) if b'"delta"' in b)
    assert all(0 < i < first_delta for i in marks)


async def test_numbered_events_keep_alive_with_a_bare_comment_line() -> None:
    events = [MessageStart("m"), MessageDelta("m", "a"), MessageEnd("m")]
    out = await bodies(
        stream_body(
            run_turn(agent_of(events, {1: 0.25}), ctx()),
            AgentaFrames(),
            Transport.SSE,
            keepalive=0.1,
            event_ids="t1",
        )
    )
    assert SSE_KEEPALIVE_LINE in out and SSE_KEEPALIVE not in out
    assert b"".join(b for b in out if b != SSE_KEEPALIVE_LINE).count(b"\n\n") == len(await delivered(events))


async def test_no_keepalive_from_a_run_that_keeps_talking() -> None:
    events = [MessageStart("m"), *[MessageDelta("m", str(i)) for i in range(8)], MessageEnd("m")]
    pauses = dict.fromkeys(range(1, 9), 0.03)
    out = await bodies(
        stream_body(run_turn(agent_of(events, pauses), ctx()), AgentaFrames(), Transport.SSE, keepalive=0.2)
    )
    assert SSE_KEEPALIVE not in out
    assert b"".join(out).count(b"\n\n") == len(events) + 1  # and the runner's done


async def test_closing_the_body_during_silence_cancels_the_agent() -> None:
    seen: list[str] = []

    async def agent(_: TurnContext) -> AsyncIterator[Event]:
        yield MessageStart("m")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        yield MessageEnd("m")

    run = run_turn(agent, ctx())
    stream = stream_body(run, AgentaFrames(), Transport.SSE, keepalive=0.05)
    assert b"message_start" in await anext(stream)
    assert await anext(stream) == SSE_KEEPALIVE
    await stream.aclose()
    assert seen == ["cancelled"]
    assert run.cancelled


async def test_cancelling_the_consumer_cancels_the_agent() -> None:
    seen: list[str] = []

    async def agent(_: TurnContext) -> AsyncIterator[Event]:
        yield MessageStart("m")
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        yield MessageEnd("m")

    async def consume() -> None:
        async for _ in stream_body(run_turn(agent, ctx()), AgentaFrames(), Transport.SSE, keepalive=0.05):
            pass

    task = asyncio.ensure_future(consume())
    await asyncio.sleep(0.12)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert seen == ["cancelled"]


async def test_a_live_turn_takes_the_opening_frames_and_the_body_follows_them() -> None:
    def body() -> Any:
        encoder = UIStreamEncoder("m-1", "s")
        return stream_body(_BareRun(busy_turn(5)), encoder, Transport.SSE, trailer=SSE_DONE)

    whole = b"".join(await bodies(body()))
    stream = body()
    opening = stream.take_opening()
    assert opening and opening == b"".join(sse_frame(f) for f in UIStreamEncoder("m-1", "s").start())
    assert stream.take_opening() == b""  # handed out once
    assert opening + b"".join(await bodies(stream)) == whole
