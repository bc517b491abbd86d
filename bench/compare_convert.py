"""Workload 1, inbound: Vercel UIMessages → canonical → Agenta messages, side by side, per corpus.

Each corpus of ``bench_vercel.CORPORA`` (mixed; many short; few long; tool-heavy; file-heavy) goes
bytes in → bytes out through:

- turnwire: ``orjson.loads`` → ``vercel.parse_messages`` → ``agenta.render_messages`` → ``orjson.dumps``
- Agenta 0.125.1: ``orjson.loads`` → ``vercel_messages_to_agenta_messages`` → ``Message.to_wire`` →
  ``orjson.dumps`` (its own service uses ``json.dumps``; orjson here only flatters it)
- pydantic-ai: ``orjson.loads`` → ``UIMessage`` validation → ``VercelAIAdapter.load_messages`` →
  ``ModelMessagesTypeAdapter.dump_json`` (it converts to its own model messages: it has no Agenta
  output, so this is the nearest job it does)
- floor: ``orjson.loads`` + ``orjson.dumps`` of the same bytes (no conversion at all)

A second table is the library path: ``turnwire.convert(messages, source="vercel", target="agenta")``,
what a library user calls, once per conversation of 1, 4 or 16 messages cut from each corpus
(thousands of calls, so the per-call cost shows), bytes in → bytes out against the same floor per
conversation.

All four run round-robin on one corpus at a time, best of ``--repeat`` in CPU time
(``time.process_time``); ratios are time ÷ time (lower is better for turnwire).

    bench/.venv/bin/python bench/compare_convert.py [--repeat 5] [--corpus "many short"] [--scale 1.0]
        [--sizes 1,4,16] [--calls 4000]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import orjson

from timing import interleaved, machine, quiet_references

quiet_references()

from agenta.sdk.agents.adapters.vercel import vercel_messages_to_agenta_messages  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402
from pydantic_ai.messages import ModelMessagesTypeAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai import VercelAIAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai.request_types import UIMessage  # noqa: E402

from bench_vercel import CORPORA  # noqa: E402
from turnwire import convert  # noqa: E402
from turnwire.formats import agenta, vercel  # noqa: E402

_ui_messages = TypeAdapter(list[UIMessage])
TARGET = 3.0
"""Issue 16: turnwire at most this many times the orjson floor on every corpus (issue 25: and
``turnwire.convert()`` on small conversations)."""
LIBRARY_BYTES = 4e6
"""The library table converts at most this much JSON a row and repeat (few long texts: fewer calls)."""


def turnwire_convert(raw: bytes) -> bytes:
    return orjson.dumps(agenta.render_messages(vercel.parse_messages(orjson.loads(raw))))


def agenta_convert(raw: bytes) -> bytes:
    return orjson.dumps([m.to_wire() for m in vercel_messages_to_agenta_messages(orjson.loads(raw))])


def pydantic_ai_convert(raw: bytes) -> bytes:
    loaded = VercelAIAdapter.load_messages(_ui_messages.validate_python(orjson.loads(raw)))
    return ModelMessagesTypeAdapter.dump_json(loaded)


def floor(raw: bytes) -> bytes:
    return orjson.dumps(orjson.loads(raw))


def library_convert(raw: bytes) -> bytes:
    return orjson.dumps(convert(orjson.loads(raw), source="vercel", target="agenta"))


def conversations(corpus: list[dict[str, Any]], size: int, calls: int) -> list[bytes]:
    """``calls`` conversations of ``size`` consecutive messages of ``corpus`` (wrapping round), as
    the bytes a library user would have decoded."""
    n = len(corpus)
    return [orjson.dumps([corpus[(i * size + j) % n] for j in range(size)]) for i in range(calls)]


def measure_library(bodies: list[bytes], repeat: int) -> dict[str, float]:
    # The library path's answer is the server path's, conversation by conversation.
    assert all(library_convert(b) == turnwire_convert(b) for b in bodies[:200]), "paths disagree"
    runs = {
        "convert": lambda: [library_convert(b) for b in bodies],
        "floor": lambda: [floor(b) for b in bodies],
    }
    return interleaved(runs, repeat, clock=time.process_time)


def measure(raw: bytes, repeat: int) -> dict[str, float]:
    ours, theirs = orjson.loads(turnwire_convert(raw)), orjson.loads(agenta_convert(raw))
    # Same job: one Agenta message per UIMessage, same roles (turnwire also keeps the ids).
    assert [m["role"] for m in ours] == [m["role"] for m in theirs], "outputs disagree"
    pydantic_ai_convert(raw)
    runs = {
        "turnwire": lambda: turnwire_convert(raw),
        "agenta": lambda: agenta_convert(raw),
        "pydantic-ai": lambda: pydantic_ai_convert(raw),
        "floor": lambda: floor(raw),
    }
    return interleaved(runs, repeat, clock=time.process_time)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--corpus", action="append", choices=list(CORPORA), help="only these (repeatable)")
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every corpus's message count")
    ap.add_argument("--sizes", default="1,4,16", help="messages per conversation, library path")
    ap.add_argument("--calls", type=int, default=4000, help="conversations per corpus and size")
    ap.add_argument("--library-only", action="store_true", help="only the library-path table")
    args = ap.parse_args()
    if not args.library_only:
        server_path(args)
    library_path(args)


def server_path(args: argparse.Namespace) -> None:
    rows = []
    for name in args.corpus or CORPORA:
        build, n, what = CORPORA[name]
        n = max(2, round(n * args.scale))
        raw = orjson.dumps(build(n))
        rows.append((name, what, n, len(raw), measure(raw, args.repeat)))

    print("## Workload 1 — inbound: UIMessages → Agenta messages, per corpus\n")
    print(f"{machine()}; CPU time, best of {args.repeat}, round-robin per corpus\n")
    print(
        "| corpus | messages | MB | turnwire ms | Agenta 0.125.1 ms | pydantic-ai ms | floor ms "
        "| turnwire ÷ floor | Agenta ÷ floor | pydantic-ai ÷ floor "
        "| Agenta ÷ turnwire | pydantic-ai ÷ turnwire |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, _, n, size, t in rows:
        tw, ag, pa, fl = t["turnwire"], t["agenta"], t["pydantic-ai"], t["floor"]
        print(
            f"| {name} | {n:,} | {size / 1e6:.1f} | {tw * 1e3:.1f} | {ag * 1e3:.1f} | {pa * 1e3:.1f} "
            f"| {fl * 1e3:.1f} | **{tw / fl:.2f}×** | {ag / fl:.2f}× | {pa / fl:.2f}× "
            f"| {ag / tw:.2f}× | {pa / tw:.2f}× |"
        )
    print()
    for name, what, *_ in rows:
        print(f"- *{name}*: {what}")
    worst = max(rows, key=lambda r: r[4]["turnwire"] / r[4]["floor"])
    ratio = worst[4]["turnwire"] / worst[4]["floor"]
    print(
        f"\nWorst corpus for turnwire: {worst[0]}, {ratio:.2f}× the floor "
        f"(target ≤ {TARGET:g}×: {'met' if ratio <= TARGET else 'NOT met'})."
    )


def library_path(args: argparse.Namespace) -> None:
    sizes = [int(x) for x in args.sizes.split(",")]
    rows = []
    for name in args.corpus or CORPORA:
        build, n, _ = CORPORA[name]
        corpus = build(max(2, min(n, max(sizes) * 64)))
        for size in sizes:
            bodies = conversations(corpus, size, args.calls)
            mean = sum(map(len, bodies)) / len(bodies)
            bodies = bodies[: max(100, min(len(bodies), int(LIBRARY_BYTES / mean)))]  # long texts: fewer
            rows.append((name, size, mean, len(bodies), measure_library(bodies, args.repeat)))
    print("\n## Library path: `turnwire.convert()` on small conversations, UIMessages → Agenta\n")
    print(
        f"{machine()}; up to {args.calls:,} calls per row (one conversation each, bytes in → bytes out; "
        f"at most {LIBRARY_BYTES / 1e6:g} MB a row), CPU time, best of {args.repeat}, round-robin per row\n"
    )
    print(
        "| corpus | messages per call | bytes per call | calls "
        "| convert µs per call | floor µs per call | ÷ floor |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, size, mean, calls, t in rows:
        per = 1e6 / calls
        print(
            f"| {name} | {size} | {mean:,.0f} | {calls:,} | {t['convert'] * per:.2f} "
            f"| {t['floor'] * per:.2f} | **{t['convert'] / t['floor']:.2f}×** |"
        )
    worst = max(rows, key=lambda r: r[4]["convert"] / r[4]["floor"])
    ratio = worst[4]["convert"] / worst[4]["floor"]
    print(
        f"\nWorst row for `turnwire.convert()`: {worst[0]}, {worst[1]} per call, {ratio:.2f}× the floor "
        f"(target ≤ {TARGET:g}×: {'met' if ratio <= TARGET else 'NOT met'})."
    )


if __name__ == "__main__":
    main()
