"""Live turns: a late reader replays the log from its first chunk, what a departing last reader
means (cancel, or go on until idle), and stop signals through the pub/sub."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from turnwire.conversations.pubsub import LocalPubSub
from turnwire.runtime.live import STOP_TOPIC, Alarm, ChunkLog, LiveTurns

pytestmark = pytest.mark.anyio


class Run:
    """A run whose body yields chunks until cancelled, like a recorded TurnRun's stream."""

    def __init__(self, chunks: int | None = None) -> None:
        self.cancelled = asyncio.Event()
        self.chunks = chunks

    def cancel(self) -> None:
        self.cancelled.set()

    async def body(self, step: asyncio.Event | None = None) -> AsyncIterator[bytes]:
        n = 0
        while self.chunks is None or n < self.chunks:
            if self.cancelled.is_set():
                yield b"cancelled;"
                return
            yield f"{n};".encode()
            n += 1
            if step is not None:
                await step.wait()
                step.clear()
            else:
                await asyncio.sleep(0)


async def _collect(reader: AsyncIterator[bytes]) -> bytes:
    return b"".join([chunk async for chunk in reader])


async def test_a_late_reader_gets_every_chunk_once_from_the_first() -> None:
    turns = LiveTurns()
    run = Run(chunks=5)
    live = turns.begin("s", "t1", run, run.body(), detached=True)
    early = await _collect(live.follow())
    late = await _collect(live.follow())  # after the end: the whole log, then the end
    assert early == late == b"0;1;2;3;4;"
    assert turns.get("s") is None  # over: nothing left to resume


async def test_the_last_reader_leaving_cancels_an_attached_turn() -> None:
    turns = LiveTurns()
    run, step = Run(), asyncio.Event()
    live = turns.begin("s", "t1", run, run.body(step), detached=False)
    reader = live.follow()
    assert await reader.__anext__() == b"0;"
    await reader.aclose()
    assert run.cancelled.is_set()
    step.set()
    assert live.task is not None
    await asyncio.wait_for(live.task, 5)
    assert live.log.chunks[-1] == b"cancelled;"


async def test_a_turn_waits_briefly_for_a_running_turn_to_lose_its_reader() -> None:
    # What a refused turn does under ``reject`` (``CLIENT_LEFT_GRACE``): a reader's departure
    # that lands within the wait stops the running turn, and the wait says so.
    turns = LiveTurns()
    run = Run()
    step = asyncio.Event()
    live = turns.begin("s", "t1", run, run.body(step), detached=False)
    reader = live.follow()
    assert await reader.__anext__() == b"0;"
    assert turns.running_here("t1")
    assert not await turns.leaving("t1", 0.05)  # its reader stays: still running
    asyncio.get_running_loop().call_later(0.05, lambda: asyncio.ensure_future(reader.aclose()))
    assert await turns.leaving("t1", 5.0)
    assert live.stopped and not turns.running_here("t1")
    step.set()
    assert live.task is not None
    await live.task
    assert await turns.leaving("t1", 5.0)  # done: nothing to wait for


async def test_a_detached_turn_goes_on_then_stops_when_nobody_reads_for_its_idle_time() -> None:
    turns = LiveTurns()
    run, step = Run(), asyncio.Event()
    live = turns.begin("s", "t1", run, run.body(step), detached=True, idle_timeout=0.05)
    reader = live.follow()
    await reader.__anext__()
    await reader.aclose()
    assert not run.cancelled.is_set()  # the client left: the turn goes on
    again = live.follow()  # a reader came back before the idle time: the clock stops
    assert await again.__anext__() == b"0;"
    await asyncio.sleep(0.1)
    assert not run.cancelled.is_set()
    await again.aclose()
    await asyncio.wait_for(run.cancelled.wait(), 5)  # nobody reads: stopped


async def test_stop_reaches_the_turn_through_the_pubsub() -> None:
    pubsub = LocalPubSub()
    here, there = LiveTurns(pubsub), LiveTurns(pubsub)  # two registries, as two workers
    run, step = Run(), asyncio.Event()
    live = there.begin("chat-1", "t1", run, run.body(step), detached=True)
    reader = live.follow()
    await reader.__anext__()
    for _ in range(50):  # the turn's stop watcher subscribes when it starts
        if pubsub.subscribers(STOP_TOPIC + "chat-1"):
            break
        await asyncio.sleep(0.01)
    assert here.stop("chat-1") is False  # not running here, signalled to whoever runs it
    await asyncio.wait_for(run.cancelled.wait(), 5)
    step.set()
    rest = await _collect(reader)
    assert rest.endswith(b"cancelled;")


async def test_a_chunk_log_read_waits_for_the_next_chunk_or_the_timeout() -> None:
    log = ChunkLog()
    assert await log.read(0, 0.01) == []
    waiting = asyncio.ensure_future(log.read(0, None))
    await asyncio.sleep(0)
    log.append(b"a")
    assert await waiting == [b"a"]
    log.close()
    assert await log.read(1, None) == []


async def test_a_read_that_times_out_leaves_no_waiter_and_the_next_read_still_wakes() -> None:
    log = ChunkLog()
    for _ in range(3):
        assert await log.read(0, 0.001) == []
    assert log._waiters == []  # timed-out readers are not kept until the next append
    waiting = asyncio.ensure_future(log.read(0, 5))
    await asyncio.sleep(0)
    log.append(b"a")
    assert await waiting == [b"a"]


async def test_a_cancelled_reader_does_not_stop_the_others_waking() -> None:
    log = ChunkLog()
    gone = asyncio.ensure_future(log.read(0, None))
    staying = asyncio.ensure_future(log.read(0, None))
    await asyncio.sleep(0)
    gone.cancel()
    await asyncio.sleep(0)
    log.append(b"a")
    assert await staying == [b"a"]
    assert gone.cancelled()


async def test_a_readers_alarm_is_one_timer_across_its_waits() -> None:
    log, alarm = ChunkLog(), Alarm()
    waiting = asyncio.ensure_future(log.read(0, 5, alarm))
    await asyncio.sleep(0)
    timer = alarm.timer
    assert timer is not None
    log.append(b"a")
    assert await waiting == [b"a"]
    waiting = asyncio.ensure_future(log.read(1, 5, alarm))
    await asyncio.sleep(0)
    assert alarm.timer is timer  # the same timer, not one more per wait
    log.append(b"b")
    assert await waiting == [b"b"]
    assert await asyncio.wait_for(log.read(2, 0.01, alarm), 5) == []  # a shorter timeout rings in time
    assert log._waiters == [] and alarm.timer is None
    alarm.cancel()


async def test_an_alarm_that_rings_for_an_answered_wait_rearms_for_the_current_one() -> None:
    log, alarm = ChunkLog(), Alarm()
    waiting = asyncio.ensure_future(log.read(0, 0.05, alarm))
    await asyncio.sleep(0)
    log.append(b"a")
    assert await waiting == [b"a"]
    await asyncio.sleep(0.02)  # the timer, armed for the first wait, rings during the second
    assert await asyncio.wait_for(log.read(1, 0.05, alarm), 5) == []
    assert log._waiters == []


async def test_a_follow_with_keepalive_sends_it_after_silence_and_chunks_in_between() -> None:
    turns = LiveTurns()

    async def body() -> AsyncIterator[bytes]:
        yield b"one;"
        await asyncio.sleep(0.08)
        yield b"two;"

    live = turns.begin("k", "t", None, body(), detached=False)
    got = [chunk async for chunk in live.follow(0.03, b":ka;")]
    assert got[0] == b"one;" and got[-1] == b"two;" and b":ka;" in got[1:-1]


async def test_a_turns_opening_is_read_before_its_task_has_run() -> None:
    # The first byte of a busy server must not wait for the turn's task to be scheduled, then for
    # its reader to be woken: the opening is in the log when ``begin`` returns.
    ran: list[bool] = []

    async def body() -> AsyncIterator[bytes]:
        ran.append(True)
        yield b"rest"

    live = LiveTurns().begin("k", "t1", Run(), body(), detached=True, opening=b"open")
    reader = live.follow()
    step = reader.__anext__().__await__()
    with pytest.raises(StopIteration) as first:  # done at its first step: no wait on the loop
        step.send(None)
    assert first.value.value == b"open" and not ran
    assert [c async for c in reader] == [b"rest"]
    # A reader that comes later replays the opening first, like every other chunk.
    assert [c async for c in live.follow()] == [b"openrest"]
