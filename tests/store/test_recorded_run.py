"""A recorded ``TurnRun`` keeps what the stream path needs from a run: ``pull`` (so what the
agent already produced goes out as one write) and ``stop_reason`` — and still stores the turn."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from turnwire.conversations.recording import RecordedRun, TurnRecorder
from turnwire.formats.agenta import AgentaFrames
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.runtime import TurnContext, run_turn
from turnwire.server.http.negotiation import Transport
from turnwire.server.turns.streaming import stream_body
from turnwire.store import SqlStore

pytestmark = pytest.mark.anyio


async def fast(ctx: TurnContext) -> AsyncIterator[Event]:
    """Fifty short messages as fast as the agent can go: the runner buffers ahead of the client."""
    for n in range(50):
        yield MessageStart(id=f"m{n}")
        yield MessageDelta(id=f"m{n}", delta=str(n))
        yield MessageEnd(id=f"m{n}")


async def test_a_recorded_run_still_batches_buffered_frames_and_stores_every_message(store: SqlStore) -> None:
    task = (await store.create_task(name="recorded"))["id"]
    recorder = TurnRecorder(store, task)
    events = recorder.record(run_turn(fast, TurnContext(session_id="s", trace_id="t")))
    assert isinstance(events, RecordedRun)
    bodies = [b async for b in stream_body(events, AgentaFrames(), Transport.SSE, keepalive=15)]
    frames = b"".join(bodies).count(b"data: ")
    assert frames == 50 * 3 + 1  # every message's three frames and the final done
    assert len(bodies) < frames / 4  # buffered events leave together, not one write each
    stored = await store.list_messages(task, limit=1000, descending=False)
    assert [m["content"]["content"] for m in stored] == [str(n) for n in range(50)]
    assert all(m["streaming_status"] == "DONE" for m in stored)


async def test_a_recorded_run_closed_early_stores_what_was_delivered(store: SqlStore) -> None:
    task = (await store.create_task(name="cut"))["id"]
    recorder = TurnRecorder(store, task)
    run = recorder.record(run_turn(fast, TurnContext(session_id="s", trace_id="t")))
    seen = [await run.__anext__() for _ in range(5)]  # m0 whole, then m1 started with its delta
    assert [type(e).__name__ for e in seen] == [
        "MessageStart",
        "MessageDelta",
        "MessageEnd",
        "MessageStart",
        "MessageDelta",
    ]
    await run.aclose()  # the client went away
    await run.aclose()  # closing twice is harmless
    stored = await store.list_messages(task, limit=1000, descending=False)
    assert [m["content"]["content"] for m in stored] == ["0", "1"]
    assert all(m["streaming_status"] == "DONE" for m in stored)
