"""Workload 3, fold: the same long turn folded into the batch result, side by side.

The turn is ``bench_agenta.build_turn`` (≥ 100k events: message deltas, thoughts, tool calls with
refreshes, results, usage, done). Each fold gets its native input, built before timing:

- turnwire ``fold`` over canonical events (what the server folds), and ``fold(decode_frames(...))``
  over Agenta frame dicts (reading a stream back)
- Agenta 0.125.1 ``agenta.sdk.agents.fold.fold`` over its ``{"type", "data"}`` event dicts
- pydantic-ai has no fold of a UI stream (its batch result comes from the agent run): not comparable
- floor: a bare ``for e in events: pass`` over the same events (and over the dicts for Agenta)

Both folds must agree: turnwire's turn rendered as Agenta messages equals Agenta's ``messages``.

    bench/.venv/bin/python bench/compare_fold.py [--events 100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio

from timing import aiter_of, interleaved, machine, quiet_references

quiet_references()

from agenta.sdk.agents.fold import fold as agenta_fold  # noqa: E402

from bench_agenta import build_turn  # noqa: E402
from turnwire.fold import fold  # noqa: E402
from turnwire.formats.agenta import decode_frames, event_to_frame, render_batch_messages  # noqa: E402


def bare_loop(items: list) -> None:
    for _ in items:
        pass


def dispatch_loop(events: list) -> None:
    # the least any fold reads per event: which kind it is
    for e in events:
        e.__class__  # noqa: B018


def dispatch_loop_dicts(frames: list) -> None:
    for f in frames:
        f["type"], f["data"]


def async_loop(items: list) -> None:
    # how events reach a fold in a server: one async generator step each
    async def consume() -> None:
        async for _ in aiter_of(items):
            pass

    asyncio.run(consume())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    events = build_turn(args.events)
    frames = [event_to_frame(e) for e in events]
    ours = render_batch_messages(fold(events).messages)
    theirs = agenta_fold(frames)["messages"]
    agree = ours == theirs

    t = interleaved(
        {
            "turnwire": lambda: fold(events),
            "turnwire dicts": lambda: fold(decode_frames(frames)),
            "agenta": lambda: agenta_fold(frames),
            "floor": lambda: bare_loop(events),
            "floor dicts": lambda: bare_loop(frames),
            "dispatch": lambda: dispatch_loop(events),
            "dispatch dicts": lambda: dispatch_loop_dicts(frames),
            "async": lambda: async_loop(events),
        },
        args.repeat,
    )
    n = len(events)
    print(f"## Workload 3 — fold of one turn of {n:,} events\n")
    print(f"{machine()}; best of {args.repeat}, round-robin\n")
    print("| implementation | input | ms | events/s | ÷ bare loop (time) | its time ÷ turnwire's |")
    print("|---|---|---|---|---|---|")
    for key, label, what in (
        ("turnwire", "turnwire fold", "canonical events"),
        ("turnwire dicts", "turnwire decode_frames + fold", "Agenta frame dicts"),
        ("agenta", "Agenta 0.125.1 fold", "Agenta frame dicts"),
        ("floor", "floor: bare loop", "canonical events"),
        ("floor dicts", "floor: bare loop", "Agenta frame dicts"),
        ("dispatch", "floor: loop reading each event's class", "canonical events"),
        ("dispatch dicts", "floor: loop reading type and data", "Agenta frame dicts"),
        ("async", "floor: async for over an async generator", "canonical events"),
    ):
        base = t["floor dicts"] if "dicts" in key or key == "agenta" else t["floor"]
        print(
            f"| {label} | {what} | {t[key] * 1e3:.2f} | {n / t[key]:,.0f} | {t[key] / base:.2f}× "
            f"| {t[key] / t['turnwire']:.2f} |"
        )
    print("| pydantic-ai | — | — | — | — | no fold of a UI stream: not comparable |")
    print(
        f"\nturnwire fold ÷ floors (time): bare loop {t['turnwire'] / t['floor']:.1f}×, "
        f"class-reading loop {t['turnwire'] / t['dispatch']:.1f}×, "
        f"async loop {t['turnwire'] / t['async']:.2f}×; "
        f"Agenta fold ÷ its bare loop {t['agenta'] / t['floor dicts']:.1f}×, "
        f"÷ its type/data loop {t['agenta'] / t['dispatch dicts']:.1f}×."
    )
    print(f"\nturnwire's folded messages {'equal' if agree else 'DIFFER FROM'} Agenta's for this turn.")


if __name__ == "__main__":
    main()
