"""Cancellation: a consumer that stops, is cancelled, or calls cancel() stops the agent quickly."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import anyio
import pytest

from turnwire.agents import demo_agent
from turnwire.model import Done, Event, Message, MessageDelta, MessageEnd, MessageStart, TextBlock
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

TRACE = "0af7651916cd43dd8448eb211c80319c"


def user_says(text: str) -> TurnContext:
    return TurnContext(
        messages=[Message(role="user", content=[TextBlock(text)])], session_id="s", trace_id=TRACE
    )


def watched(agent: Any, seen: list[str]) -> Any:
    """``agent`` wrapped so the test learns how it ended."""

    async def wrapper(ctx: TurnContext) -> AsyncIterator[Event]:
        try:
            async for event in agent(ctx):
                yield event
        except asyncio.CancelledError:
            seen.append("cancelled")
            raise
        except GeneratorExit:
            seen.append("closed")
            raise
        seen.append("finished")

    return wrapper


async def test_aclose_mid_count_cancels_the_agent_within_a_second() -> None:
    seen: list[str] = []
    run = run_turn(watched(demo_agent, seen), user_says("count to 1000"))
    received = []
    async for event in run:
        received.append(event)
        if event == MessageEnd("msg_1_3"):
            break
    started = time.perf_counter()
    await run.aclose()
    elapsed = time.perf_counter() - started
    assert elapsed < 1.0
    assert seen == ["cancelled"]
    assert run.agent_task is not None and run.agent_task.done()
    assert run.cancelled and run.stop_reason == "cancelled"
    assert received[-3:] == [MessageStart("msg_1_3"), MessageDelta("msg_1_3", "3"), MessageEnd("msg_1_3")]


async def test_cancelling_the_consuming_task_cancels_the_agent() -> None:
    seen: list[str] = []
    run = run_turn(watched(demo_agent, seen), user_says("count to 1000"))
    received: list[Event] = []

    async def consume() -> None:
        async for event in run:
            received.append(event)

    consumer = asyncio.create_task(consume())
    while len(received) < 6:
        await asyncio.sleep(0.01)
    started = time.perf_counter()
    consumer.cancel()
    with pytest.raises(asyncio.CancelledError):
        await consumer
    assert time.perf_counter() - started < 1.0
    assert seen == ["cancelled"]
    assert run.agent_task is not None and run.agent_task.done()
    assert run.cancelled and run.stop_reason == "cancelled"
    assert not any(isinstance(e, Done) for e in received)


async def test_level_triggered_cancel_scope_still_waits_for_the_agent() -> None:
    seen: list[str] = []
    run = run_turn(watched(demo_agent, seen), user_says("count to 1000"))
    with anyio.move_on_after(0.2) as scope:
        async for _ in run:
            pass
    assert scope.cancelled_caught
    assert seen == ["cancelled"]
    assert run.agent_task is not None and run.agent_task.done()


async def test_explicit_cancel_closes_open_parts_and_ends_with_cancelled_done() -> None:
    seen: list[str] = []
    gate = asyncio.Event()

    async def typing(_: TurnContext) -> AsyncIterator[Event]:
        yield MessageStart("m")
        yield MessageDelta("m", "half a sen")
        gate.set()
        await asyncio.Event().wait()
        yield MessageDelta("m", "tence")

    run = run_turn(watched(typing, seen), user_says("x"))
    out: list[Event] = []

    async def consume() -> None:
        async for event in run:
            out.append(event)

    consumer = asyncio.create_task(consume())
    await gate.wait()
    run.cancel()
    await asyncio.wait_for(consumer, 1.0)
    assert out == [
        MessageStart("m"),
        MessageDelta("m", "half a sen"),
        MessageEnd("m"),
        Done(stop_reason="cancelled", trace_id=TRACE),
    ]
    assert seen == ["cancelled"]
    assert run.cancelled and run.stop_reason == "cancelled"


async def test_cancel_still_delivers_events_produced_before_it() -> None:
    async def burst(_: TurnContext) -> AsyncIterator[Event]:
        for i in range(10):
            yield MessageStart(f"m{i}")
            yield MessageEnd(f"m{i}")
        await asyncio.Event().wait()

    run = run_turn(burst, user_says("x"))
    first = await run.__anext__()
    await asyncio.sleep(0.01)  # the agent has produced all 20 and is waiting
    run.cancel()
    rest = [event async for event in run]
    assert first == MessageStart("m0")
    assert len(rest) == 20 and rest[-1] == Done(stop_reason="cancelled", trace_id=TRACE)
    assert rest[-2] == MessageEnd("m9")


async def test_cancel_before_iteration_never_starts_the_agent() -> None:
    calls: list[str] = []

    async def agent(_: TurnContext) -> AsyncIterator[Event]:
        calls.append("called")
        yield MessageStart("m")

    run = run_turn(agent, user_says("x"))
    run.cancel()
    assert [e async for e in run] == [Done(stop_reason="cancelled", trace_id=TRACE)]
    assert calls == [] and run.agent_task is None and run.cancelled


async def test_cancel_after_the_turn_finished_changes_nothing() -> None:
    run = run_turn(demo_agent, user_says("silent"))
    assert [e async for e in run] == [Done(stop_reason="end_turn", trace_id=TRACE)]
    run.cancel()
    assert run.stop_reason == "end_turn" and not run.cancelled


async def test_agent_ignoring_cancellation_is_abandoned_after_the_grace_period() -> None:
    release = asyncio.Event()

    async def stubborn(_: TurnContext) -> AsyncIterator[Event]:
        yield MessageStart("m")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await release.wait()  # refuses to stop until the test lets it
        yield MessageEnd("m")

    run = run_turn(stubborn, user_says("x"))
    await run.__anext__()
    started = time.perf_counter()
    await run.aclose()
    elapsed = time.perf_counter() - started
    assert 0.9 <= elapsed < 3.0
    task = run.agent_task
    assert task is not None and not task.done()
    release.set()
    await asyncio.wait_for(asyncio.wait({task}), 1.0)


async def test_slow_consumer_holds_the_agent_back_with_a_bounded_buffer() -> None:
    produced = 0

    async def firehose(_: TurnContext) -> AsyncIterator[Event]:
        nonlocal produced
        for i in range(10_000):
            produced += 1
            yield MessageStart(f"m{i}")

    run = run_turn(firehose, user_says("x"))
    await run.__anext__()
    await asyncio.sleep(0.05)
    assert produced <= 70
    await run.aclose()


async def test_undelivered_events_are_kept_in_order_after_close() -> None:
    async def burst(_: TurnContext) -> AsyncIterator[Event]:
        for i in range(30):
            yield MessageDelta("m", str(i))
        await asyncio.Event().wait()

    run = run_turn(burst, user_says("x"))
    delivered = [await run.__anext__() for _ in range(3)]
    await asyncio.sleep(0.01)
    await run.aclose()
    assert delivered == [MessageStart("m"), MessageDelta("m", "0"), MessageDelta("m", "1")]
    assert run.undelivered == [MessageDelta("m", str(i)) for i in range(2, 30)]


async def test_many_concurrent_turns_each_get_their_own_well_formed_stream() -> None:
    async def one(i: int) -> list[Event]:
        return [e async for e in run_turn(demo_agent, user_says(f"count to {1 + i % 3}"))]

    results = await asyncio.gather(*(one(i) for i in range(300)))
    for i, out in enumerate(results):
        n = 1 + i % 3
        assert [e.delta for e in out if isinstance(e, MessageDelta)] == [str(k) for k in range(1, n + 1)]
        assert out[-1] == Done(stop_reason="end_turn", trace_id=TRACE)
