"""Timing helpers shared by the side-by-side benchmarks: best-of timing, the machine line, and a
``references()`` import that silences the reference implementations' logging."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import platform
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import Any


def best_of(fn: Callable[[], Any], repeat: int) -> float:
    """The shortest wall time of ``repeat`` calls of ``fn``, each after a full garbage collection."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def interleaved(
    fns: dict[str, Callable[[], Any]], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> dict[str, float]:
    """Best time of each of ``fns``, run round-robin so noise from a shared machine hits all alike.
    ``clock=time.process_time`` measures CPU time, which other processes on the machine disturb less."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeat):
        for name, fn in fns.items():
            gc.collect()
            t0 = clock()
            fn()
            best[name] = min(best[name], clock() - t0)
    return best


def interleaved_async(runs: dict[str, Callable[[], Awaitable[Any]]], repeat: int) -> dict[str, float]:
    """``interleaved`` for coroutines: the best CPU time of each of ``runs``, round-robin on one
    uvloop loop, after one warm-up run of each."""
    import uvloop

    best = dict.fromkeys(runs, float("inf"))
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        for run in runs.values():
            runner.run(run())
        for _ in range(repeat):
            for name, run in runs.items():
                t0 = time.process_time()
                runner.run(run())
                best[name] = min(best[name], time.process_time() - t0)
    return best


async def aiter_of(items: Iterable[Any]) -> AsyncIterator[Any]:
    for item in items:
        yield item


def drain(agen: AsyncIterator[Any]) -> list[Any]:
    """Run ``agen`` to the end on a fresh event loop and return what it yielded."""

    async def collect() -> list[Any]:
        return [item async for item in agen]

    return asyncio.run(collect())


def machine() -> str:
    """One line naming the machine, Python and the date, for the results header."""
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    cpu = platform.processor() or platform.machine()
    try:
        for line in open("/proc/cpuinfo"):  # noqa: SIM115 - read once, closed by GC
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"{cpu}, {os.cpu_count()} cores, {mem:.0f} GiB, Python {platform.python_version()}, {when}"


def quiet_references() -> None:
    """Silence the references' logging (Agenta logs per message/part) so it is not what we time."""
    os.environ.setdefault("AGENTA_AGENT_SSE_KEEPALIVE_SECONDS", "0")
    logging.disable(logging.CRITICAL)
