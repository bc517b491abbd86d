"""The recorder's per-event step alone, pure against compiled trees (``native_build.py``): a bound.

``TurnRecorder.on_event`` is the hottest turnwire code of a recorded stream (cProfile of
``serve_inproc.py --profile nullstore``: it builds each event's TaskMessageUpdate frames
(``formats/agentex/updates.py``), tracks them for the store (``_track``, ``Accumulator``,
``store/clock.py``) and is called once per event). Here it runs alone on the 32 events of
``count to 10`` for ``--turns`` fresh recorders over a store that keeps nothing, with no HTTP,
no event-loop hop and no agent: what compiling that code can save per event at most.

Each tree runs in its own process, round robin, best of ``--alternations`` × ``--rounds``, CPU time:

    bench/.venv/bin/python bench/experiments/native_hot.py pure=src \
        cython=/tmp/turnwire-cython/src [--turns 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import time
from typing import Any


async def _measure(turns: int, rounds: int) -> float:
    from turnwire.conversations.recording import TurnRecorder
    from turnwire.model import Done, MessageDelta, MessageEnd, MessageStart, StopReason, Usage

    class NullStore:
        async def message_clock(self, task_id: str) -> int:
            return 0

        async def write_flush(self, *args: Any) -> None:
            return None

    events: list[Any] = []
    for i in range(1, 11):
        events += [MessageStart(id=f"msg_1_{i}"), MessageDelta(id=f"msg_1_{i}", delta=str(i))]
        events.append(MessageEnd(id=f"msg_1_{i}"))
    events += [Usage(input=3, output=10, total=13), Done(stop_reason=StopReason.END_TURN)]
    store = NullStore()
    best = float("inf")
    for _ in range(rounds):
        recorders = [TurnRecorder(store, f"task_{k}", clock=0, flush_interval=3600) for k in range(turns)]
        t = time.process_time()
        for recorder in recorders:
            on_event = recorder.on_event
            for event in events:
                on_event(event)
        best = min(best, (time.process_time() - t) / (turns * len(events)))
        for recorder in recorders:  # the flush each recorder scheduled, never due
            if recorder._writer is not None:
                recorder._writer.cancel()
        await asyncio.sleep(0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="*", help="name=path of a src tree")
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--alternations", type=int, default=5)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        import turnwire.conversations.recording as recording

        print(recording.__file__, asyncio.run(_measure(args.turns, args.rounds)))
        return
    best: dict[str, float] = {}
    for _ in range(args.alternations):
        for name, path in (t.split("=", 1) for t in args.trees):
            env = dict(os.environ, PYTHONPATH=os.path.abspath(path))
            cmd = [
                sys.executable,
                __file__,
                "--child",
                "--turns",
                str(args.turns),
                "--rounds",
                str(args.rounds),
            ]
            origin, spent = subprocess.run(
                cmd, env=env, capture_output=True, text=True, check=True
            ).stdout.split()
            if not origin.startswith(os.path.abspath(path)):
                raise RuntimeError(f"{name}: recording came from {origin}")
            best[name] = min(best.get(name, float("inf")), float(spent))
            print(f"{name:10} {float(spent) * 1e9:7.0f} ns/event  ({os.path.basename(origin)})", flush=True)
    first = next(iter(best.values()))
    print("\n| tree | on_event ns/event (best) | ÷ first tree |\n|---|---|---|")
    for name, spent in best.items():
        print(f"| {name} | {spent * 1e9:.0f} | {spent / first:.2f}× |")


if __name__ == "__main__":
    main()
