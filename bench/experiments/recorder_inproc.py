"""The recorder alone, in process: CPU per turn of ``TurnRecorder`` over a store that keeps nothing.

Each turn is ``count to <n>`` as the served path sees it (``MessageStart``/``MessageDelta``/
``MessageEnd`` per number, then ``Usage`` and ``Done``), pulled through ``TurnRecorder.record``'s
``RecordedRun`` exactly as ``turnwire serve`` pulls a ``TurnRun``, with the client's message as
inbound and the in-process pub/sub (``--subscribed``: one reader on every task, drained). The bare
pull of the same events is measured alongside, so ``recorder`` is what recording adds. Turns run
``--concurrent`` at a time under uvloop; best of ``--rounds`` round-robin rounds.

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/recorder_inproc.py [--n 10] [--subscribed]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from typing import Any

from turnwire.model import Done, Event, MessageDelta, MessageEnd, MessageStart, StopReason, Usage


class _Run:
    """A ``TurnRun`` over a fixed list of events (``pull``, ``stop_reason``, ``aclose``)."""

    def __init__(self, events: Sequence[Event]) -> None:
        self._events = iter(events)
        self.stop_reason: str | None = None

    def __aiter__(self) -> _Run:
        return self

    async def __anext__(self) -> Event:
        event = await self.pull(None)
        assert event is not None
        return event

    async def pull(self, timeout: float | None) -> Event | None:
        event = next(self._events, None)
        if event is None:
            raise StopAsyncIteration
        if type(event) is Done:
            self.stop_reason = event.stop_reason
        return event

    async def aclose(self) -> None:
        return None


class _NullStore:
    async def message_clock(self, task_id: str) -> int:
        return 0

    async def write_flush(self, task_id: str, new: Any, changed: Any) -> None:
        return None


def _events(n: int) -> list[Event]:
    out: list[Event] = []
    for i in range(1, n + 1):
        mid = f"msg_1_{i}"
        out += [MessageStart(id=mid), MessageDelta(id=mid, delta=str(i)), MessageEnd(id=mid)]
    out += [Usage(input=3, output=n, total=3 + n), Done(stop_reason=StopReason.END_TURN)]
    return out


async def _bare(events: list[Event]) -> None:
    run = _Run(events)
    pull = run.pull
    while True:
        try:
            await pull(None)
        except StopAsyncIteration:
            break
    await run.aclose()


async def _recorded(events: list[Event], pubsub: Any, k: int) -> None:
    from turnwire.conversations.recording import TurnRecorder

    recorder = TurnRecorder(
        _NullStore(),  # type: ignore[arg-type]
        f"task-{k}",
        pubsub,
        inbound=[{"type": "text", "author": "user", "content": "count to 10"}],
        clock=0,
        message_id=f"msg-{k}",
        turn_id=f"trace-{k}",
    )
    run: Any = recorder.record(_Run(events))  # type: ignore[arg-type]
    pull = run.pull
    while True:
        try:
            await pull(None)
        except StopAsyncIteration:
            break
    await run.aclose()


async def _drain(sub: Any, counts: list[int]) -> None:
    async for _ in sub:
        counts[0] += 1


async def main_async(args: argparse.Namespace) -> None:
    import turnwire
    from turnwire.conversations.pubsub import LocalPubSub

    print(f"turnwire from {turnwire.__file__}", file=sys.stderr)
    events = _events(args.n)
    pubsub = LocalPubSub()
    best = {"bare": float("inf"), "recorded": float("inf")}
    serial = 0
    counts = [0]
    for _ in range(args.rounds + 1):  # the first round warms up
        for name in best:
            readers: list[asyncio.Task[None]] = []
            keys = range(serial, serial + args.concurrent)
            serial += args.concurrent
            if args.subscribed and name == "recorded":
                subs = [pubsub.subscribe(f"task-{k}") for k in keys]
                readers = [asyncio.ensure_future(_drain(s, counts)) for s in subs]
            t = time.process_time()
            if name == "bare":
                await asyncio.gather(*(_bare(events) for _ in keys))
            else:
                await asyncio.gather(*(_recorded(events, pubsub, k) for k in keys))
            await asyncio.sleep(0)
            spent = (time.process_time() - t) / args.concurrent
            for r in readers:
                r.cancel()
            best[name] = min(best[name], spent)
    print(
        f"bare {best['bare'] * 1e6:7.1f} µs/turn  recorded {best['recorded'] * 1e6:7.1f} µs/turn  "
        f"recorder {(best['recorded'] - best['bare']) * 1e6:7.1f} µs/turn"
        + (f"  (frames read: {counts[0]})" if args.subscribed else "")
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=10)
    p.add_argument("--concurrent", type=int, default=100)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--subscribed", action="store_true")
    args = p.parse_args()
    import uvloop

    uvloop.run(main_async(args))


if __name__ == "__main__":
    main()
