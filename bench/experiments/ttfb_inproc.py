"""Workload 4's time to first byte in process: N new sessions at once, driven by direct ASGI calls.

``sqlite-lf`` is the ``sqlite`` app with its recorder flushes on the event loop's connection
(``SqlStore.quick_flushes = True``) instead of the SQLite writer thread. ``--cadence`` also
reports each app's p99 lateness of the numbers (``message_start`` more than 50 ms after the last).

Like ``serve_inproc.py`` (no HTTP, no sockets, uvloop) but timing each request from its call to
its first non-empty body chunk, for ``floor``, ``nullstore`` and ``sqlite`` (see ``serve_inproc``),
round robin, each app's best p50 and p99 over ``--rounds``. ``--phases`` also splits the ``sqlite``
requests' setup: request → session found (``open_conversation``) → turn started (``start_turn``
returned) → first body chunk, as medians and p99 of each step's end, in ms from the request.

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/ttfb_inproc.py [--concurrent 1000] [--cadence]
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import itertools
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # serve_inproc
sys.path.insert(0, str(HERE.parent))  # bench/: the apps serve_inproc serves

from serve_inproc import _apps, _body, _Lifespan, asgi_call, http_scope, run_on_fresh_sqlite  # noqa: E402

_marks: contextvars.ContextVar[dict[str, float] | None] = contextvars.ContextVar("marks", default=None)


def _instrument() -> None:
    """Wrap ``open_conversation`` and ``start_turn`` (as the pipeline and doors call them) to note
    when each request got past them."""
    from turnwire.server import invoke, pipeline

    def marked(fn: Any, name: str) -> Any:
        async def wrapper(*args: Any, **kw: Any) -> Any:
            out = await fn(*args, **kw)
            marks = _marks.get()
            if marks is not None and name not in marks:
                marks[name] = time.perf_counter()
            return out

        return wrapper

    from turnwire.conversations import recording
    from turnwire.runtime import live

    def noted(fn: Any, name: str) -> Any:
        def wrapper(*args: Any, **kw: Any) -> Any:
            marks = _marks.get()
            if marks is not None and name not in marks:
                marks[name] = time.perf_counter()
            return fn(*args, **kw)

        return wrapper

    invoke.read_object = marked(invoke.read_object, "body")
    pipeline.open_conversation = marked(pipeline.open_conversation, "session")
    invoke.start_turn = marked(invoke.start_turn, "started")
    recording.TurnRecorder.begin = marked(recording.TurnRecorder.begin, "begun")
    recording.TurnRecorder.on_event = noted(recording.TurnRecorder.on_event, "event")
    live.ChunkLog.append = noted(live.ChunkLog.append, "logged")


async def _one(app: Any, path: str, body: bytes, query: bytes, marks: dict[str, float]) -> bytes:
    starts: list[float] = []

    def on_chunk(chunk: bytes) -> None:
        if chunk and "first" not in marks:
            marks["first"] = time.perf_counter()
        if b"message_start" in chunk:
            starts.append(time.perf_counter())

    _marks.set(marks)
    marks["t0"] = time.perf_counter()
    _, answer = await asgi_call(app, http_scope(path, body, query=query), body, on_chunk)
    _LATE.extend(max(0.0, b - a - 0.05) for a, b in itertools.pairwise(starts))
    return answer


_LATE: list[float] = []
"""Lateness of every ``message_start`` after the first (cadenced: how much later than 50 ms)."""
STEPS = ("body", "session", "started", "begun", "event", "logged", "first")


def _pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else 0.0


Marks = list[dict[str, float]]


async def _round(app: Any, name: str, args: argparse.Namespace) -> tuple[float, float, Marks]:
    from turnwire.store import SqlStore

    SqlStore.quick_flushes = name == "sqlite-lf"
    _LATE.clear()
    floor = name == "floor"
    path = "/agents/fast/invoke" if not args.cadence and not floor else "/invoke"
    query = b"cadence=0" if floor and not args.cadence else b""
    body = _body(args.n)
    marks: list[dict[str, float]] = [{} for _ in range(args.concurrent)]
    answers = await asyncio.gather(*(_one(app, path, body, query, m) for m in marks))
    for a in answers:
        if b'"done"' not in a[-400:]:
            raise RuntimeError(f"an answer did not end with done: {a[-400:]!r}")
    ttfb = [m["first"] - m["t0"] for m in marks]
    return _pct(ttfb, 0.5), _pct(ttfb, 0.99), marks


async def main_async(args: argparse.Namespace) -> None:
    import turnwire

    print(f"turnwire from {turnwire.__file__}", file=sys.stderr)
    if args.phases:
        _instrument()
    names = args.apps.split(",")
    apps = _apps([n for n in names if n != "sqlite-lf"])
    if "sqlite-lf" in names:  # the same app as sqlite, its flushes on the loop
        apps["sqlite-lf"] = apps.get("sqlite") or _apps(["sqlite"])["sqlite"]
    late: dict[str, float] = {name: float("inf") for name in names}
    best: dict[str, list[float]] = {name: [float("inf"), float("inf")] for name in names}
    phases: dict[str, dict[str, list[float]]] = {}
    cpu: dict[str, float] = {name: float("inf") for name in names}
    contexts = [_Lifespan(app) for name, app in apps.items() if name != "sqlite-lf" or "sqlite" not in apps]
    for ctx in contexts:
        await ctx.__aenter__()
    try:
        for name, app in apps.items():  # warm up
            await _round(app, name, argparse.Namespace(**{**vars(args), "concurrent": 5, "n": 3}))
        for _ in range(args.rounds):
            for name, app in apps.items():
                c0 = time.process_time()
                p50, p99, marks = await _round(app, name, args)
                cpu[name] = min(cpu[name], (time.process_time() - c0) / args.concurrent)
                late[name] = min(late[name], _pct(_LATE, 0.99))
                if p99 < best[name][1]:
                    best[name] = [p50, p99]
                    if name != "floor" and args.phases:
                        phases[name] = {
                            step: [m[step] - m["t0"] for m in marks]
                            for step in STEPS
                            if all(step in m for m in marks)
                        }
    finally:
        for ctx in contexts:
            await ctx.__aexit__(None, None, None)
    floor = best.get("floor")
    for name in names:
        p50, p99 = best[name]
        ratio = f"  p99 {p99 / floor[1]:5.2f}× floor" if floor else ""
        print(
            f"{name:10} TTFB p50 {p50 * 1e3:7.1f} ms  p99 {p99 * 1e3:7.1f} ms{ratio}  "
            f"CPU {cpu[name] * 1e6:6.0f} µs/request"
            + (f"  late p99 {late[name] * 1e3:6.1f} ms" if args.cadence else "")
        )
    for name, steps in phases.items():
        split = (f"{s} {_pct(v, 0.5) * 1e3:.0f}/{_pct(v, 0.99) * 1e3:.0f}" for s, v in steps.items())
        print(f"  {name} (ms, p50/p99): " + "  ".join(split))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--apps", default="floor,nullstore,sqlite")
    p.add_argument("--n", type=int, default=20, help="count to n")
    p.add_argument("--concurrent", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--cadence", action="store_true", help="the demo agent with its 50 ms pause")
    p.add_argument("--phases", action="store_true", help="split the sqlite requests' setup")
    p.add_argument("--switch", type=float, default=0.0, help="sys.setswitchinterval (s) if set")
    args = p.parse_args()
    if args.switch:
        sys.setswitchinterval(args.switch)
    run_on_fresh_sqlite(main_async, args)


if __name__ == "__main__":
    main()
