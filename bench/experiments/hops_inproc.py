"""What fewer task hops per event would buy: the lever issues 16 and 25 named, measured in process.

A streamed turn of ``turnwire serve`` passes every event through three tasks: the agent's
(``TurnRun._pump``, feeding a channel), the live turn's (``LiveTurn._drive``: guard, recorder,
encoder, log) and the response's (``LiveTurn.follow``: the log to the socket). The floor has one.
This runs the same apps as ``serve_inproc.py`` with those hops taken out by patches, variants
alternated round by round in one process, best of ``--rounds``:

- ``as is``: main.
- ``agent inline``: the agent is iterated in the live turn's task (no agent task, no channel).
- ``reader drives``: the response's task iterates the turn's body itself (no live turn task).
- ``both``: one task per turn, as the floor.

The patches are measurement prototypes, not the product: they keep no cancellation (a stop, a
client leaving, an agent that ignores its cancel) and no re-attach, which is what the tasks are
for. Every answer is still checked to end with its ``done`` frame.

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/hops_inproc.py [--cadence] [--n 20]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncGenerator, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

VARIANTS = ("as is", "agent inline", "reader drives", "both")


def _inline_stream(self: Any) -> AsyncGenerator[Any, None]:
    """``TurnRun._stream`` with the agent iterated in the consumer's own task."""
    from turnwire.errors import failure_message
    from turnwire.model import ErrorEvent
    from turnwire.runtime.ordering import TurnGuard
    from turnwire.runtime.runner import FAILURE_CODE, INVALID_EVENT_CODE
    from turnwire.runtime.validation import CHECKS, validate_event

    async def stream() -> AsyncGenerator[Any, None]:
        guard = TurnGuard(self.ctx.trace_id or None)
        accept, checks = guard.accept, CHECKS.get
        agen = self.agent(self.ctx)
        tail = None
        try:
            while True:
                if self._timeout == 0:  # "only what is buffered": an inline agent has nothing buffered
                    yield None
                    continue
                try:
                    item = await agen.__anext__()
                except StopAsyncIteration:
                    break
                check = checks(type(item))
                if check is None or check(item) is not None:
                    problem = validate_event(item)
                    error = ErrorEvent(message=f"Agent run failed: {problem}", code=INVALID_EVENT_CODE)
                    tail = guard.finish("error", error)
                    break
                out = accept(item)
                if out is None:
                    continue
                if isinstance(out, tuple):
                    for event in out:
                        yield event
                else:
                    yield out
        except Exception as exc:
            error = ErrorEvent(message=failure_message(exc), code=FAILURE_CODE)
            tail = guard.finish("error", error)
        if tail is None:
            tail = guard.finish()
        for event in tail[:-1]:
            yield event
        self.stop_reason = guard.stop_reason
        yield tail[-1]

    return stream()


def _patches() -> dict[str, Callable[[bool], None]]:
    from turnwire.runtime import live, runner

    original_init = runner.TurnRun.__init__
    original_begin = live.LiveTurns.begin
    original_follow = live.LiveTurn.follow

    def inline_init(self: Any, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        self._gen = _inline_stream(self)  # the unstarted ``_stream`` generator is dropped

    def direct_begin(self: Any, key: str, turn_id: str, run: Any, body: Any, **kwargs: Any) -> Any:
        opening = kwargs.pop("opening", b"")
        kwargs.pop("idle_timeout", None)
        turn = live.LiveTurn(self, key, turn_id, run, idle_timeout=None, **kwargs)
        turn.direct = (opening, body)
        return turn

    async def direct_follow(self: Any, keepalive: float | None = None, keepalive_bytes: bytes = b"") -> Any:
        direct = getattr(self, "direct", None)
        if direct is None:
            async for data in original_follow(self, keepalive, keepalive_bytes):
                yield data
            return
        opening, body = direct
        if opening:
            yield opening
        async for data in body:
            yield data
        self.log.close()

    def agent_inline(on: bool) -> None:
        runner.TurnRun.__init__ = inline_init if on else original_init  # type: ignore[method-assign]

    def reader_drives(on: bool) -> None:
        live.LiveTurns.begin = direct_begin if on else original_begin  # type: ignore[method-assign]
        live.LiveTurn.follow = direct_follow if on else original_follow  # type: ignore[method-assign]

    return {"agent inline": agent_inline, "reader drives": reader_drives}


def _apply(patches: dict[str, Callable[[bool], None]], variant: str) -> None:
    patches["agent inline"](variant in ("agent inline", "both"))
    patches["reader drives"](variant in ("reader drives", "both"))


async def main_async(args: argparse.Namespace) -> None:
    import serve_inproc

    apps = serve_inproc._apps(["floor", *args.apps.split(",")])
    patches = _patches()
    contexts = [serve_inproc._Lifespan(app) for app in apps.values()]
    for ctx in contexts:
        await ctx.__aenter__()
    rows = [("floor", "floor")] + [(name, v) for name in apps if name != "floor" for v in VARIANTS]
    best = {row: float("inf") for row in rows}
    try:
        for name, app in apps.items():  # warm up every path
            for variant in VARIANTS if name != "floor" else ("as is",):
                _apply(patches, variant)
                await serve_inproc._round(app, 3, 5, args.cadence, name == "floor")
        for _ in range(args.rounds):
            for name, variant in rows:
                _apply(patches, "as is" if name == "floor" else variant)
                app = apps[name]
                spent = await serve_inproc._round(app, args.n, args.concurrent, args.cadence, name == "floor")
                best[name, variant] = min(best[name, variant], spent)
    finally:
        _apply(patches, "as is")
        for ctx in contexts:
            await ctx.__aexit__(None, None, None)
    floor = best["floor", "floor"]
    shape = f"count to {args.n}" + (", cadenced" if args.cadence else "")
    print(f"| app | variant ({shape}, {args.concurrent} at once) | µs CPU per request | ÷ floor | ÷ as is |")
    print("|---|---|---|---|---|")
    for name, variant in rows:
        spent = best[name, variant]
        base = best.get((name, "as is"), spent)
        print(f"| {name} | {variant} | {spent * 1e6:.0f} | {spent / floor:.2f}× | {spent / base:.2f}× |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--apps", default="nostore,nullstore,sqlite")
    p.add_argument("--n", type=int, default=10, help="count to n")
    p.add_argument("--concurrent", type=int, default=100)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cadence", action="store_true", help="the demo agent with its 50 ms pause")
    args = p.parse_args()
    import serve_inproc

    serve_inproc.run_on_fresh_sqlite(main_async, args)


if __name__ == "__main__":
    main()
