"""Benchmark the Agenta hot paths: parse + render of messages, and fold of a long turn.

Run: .venv/bin/python bench/bench_agenta.py [--messages N] [--events N] [--repeat R]

Floors: ``orjson.loads`` + ``orjson.dumps`` of the same corpus bytes (the least any JSON-to-JSON
conversion must do), and a bare ``for e in events: pass`` loop over the same events. Each figure is
the best of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import time
from collections.abc import Callable
from typing import Any

import orjson

from turnwire.fold import fold
from turnwire.formats.agenta import parse_messages, render_messages
from turnwire.model import (
    Done,
    Event,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ThoughtDelta,
    ToolCall,
    ToolResult,
    Usage,
)


def build_corpus(n: int, seed: int = 7) -> list[dict[str, Any]]:
    """``n`` Agenta messages in wire form: plain strings, text lists, images, tool calls and results."""
    rng = random.Random(seed)
    words = [
        "the",
        "build",
        "fails",
        "because",
        "python",
        "requires",
        "a",
        "newer",
        "version",
        "of",
        "the",
        "runtime",
        "in",
        "ci",
    ]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(4, 30)))

    out: list[dict[str, Any]] = []
    for i in range(n):
        kind = rng.random()
        if kind < 0.40:
            out.append({"role": rng.choice(["user", "assistant"]), "content": sentence()})
        elif kind < 0.60:
            out.append(
                {
                    "role": "user",
                    "content": [{"type": "text", "text": sentence()}, {"type": "text", "text": sentence()}],
                    "display_content": sentence(),
                }
            )
        elif kind < 0.70:
            out.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": sentence()},
                        {"type": "image", "data": "iVBORw0KGgo" * 8, "mimeType": "image/png"},
                    ],
                }
            )
        else:
            call_id = f"call_{i:06d}"
            out.append(
                {
                    "role": "assistant",
                    "content": [
                        {"type": "text", "text": sentence()},
                        {
                            "type": "tool_call",
                            "toolCallId": call_id,
                            "toolName": "bash",
                            "input": {"command": "ls"},
                        },
                        {
                            "type": "tool_result",
                            "toolCallId": call_id,
                            "toolName": "bash",
                            "output": sentence(),
                            "isError": rng.random() < 0.1,
                        },
                    ],
                }
            )
    return out


def build_turn(n: int, seed: int = 7) -> list[Event]:
    """A turn of ``n`` events, mostly message deltas, with tool calls (some refreshed) and results."""
    rng = random.Random(seed)
    events: list[Event] = []
    msg = 0
    while len(events) < n - 1:
        r = rng.random()
        if r < 0.08:
            call_id = f"c{len(events)}"
            events.append(ToolCall(call_id, "bash", {}))
            events.append(ToolCall(call_id, None, {"command": "ls"}, raw_input={"command": "ls -la"}))
            events.append(ToolResult(call_id, "ok", is_error=False))
        elif r < 0.10:
            events.append(MessageEvent("short answer"))
        elif r < 0.12:
            events.append(ThoughtDelta("r", "thinking"))
        elif r < 0.13:
            events.append(Usage(10, 5, 15))
        else:
            mid = f"m{msg}"
            msg += 1
            events.append(MessageStart(mid))
            events.extend(MessageDelta(mid, "tok ") for _ in range(rng.randint(5, 40)))
            events.append(MessageEnd(mid))
    del events[n - 1 :]
    events.append(Done("end_turn"))
    return events


def best_of(repeat: int, fn: Callable[[], Any]) -> float:
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    corpus = build_corpus(args.messages)
    body = orjson.dumps(corpus)
    decoded = orjson.loads(body)
    parsed = parse_messages(decoded)
    assert parse_messages(render_messages(parsed)) == parsed  # the benchmark measures a correct path

    floor = best_of(args.repeat, lambda: orjson.dumps(orjson.loads(body)))
    t_parse = best_of(args.repeat, lambda: parse_messages(decoded))
    t_render = best_of(args.repeat, lambda: render_messages(parsed))
    t_both = best_of(args.repeat, lambda: render_messages(parse_messages(decoded)))
    t_e2e = best_of(args.repeat, lambda: orjson.dumps(render_messages(parse_messages(orjson.loads(body)))))

    events = build_turn(args.events)
    assert len(events) == args.events

    def bare_loop() -> None:
        for _e in events:
            pass

    def delta_loop() -> None:
        # the least a fold must do per streamed token: check the class, look up the id, append
        parts: dict[str, list[str]] = {}
        get, delta_cls = parts.get, MessageDelta
        for e in events:
            if e.__class__ is delta_cls:
                found = get(e.id)
                if found is not None:
                    found.append(e.delta)

    t_loop = best_of(args.repeat, bare_loop)
    t_delta = best_of(args.repeat, delta_loop)
    t_fold = best_of(args.repeat, lambda: fold(events))
    t_fold_full = best_of(args.repeat, lambda: fold(events, full=True))

    n, m = args.messages, args.events
    blocks = sum(len(p.content) for p in parsed)
    print(
        f"Python {platform.python_version()} on {platform.machine()}; corpus {n} messages / {blocks} blocks, "
        f"{len(body) / 1e6:.1f} MB; turn {m} events; best of {args.repeat}"
    )
    print(f"{'measure':<44}{'time ms':>10}{'per second':>16}{'× floor':>10}")
    rows = [
        ("floor: orjson.loads + orjson.dumps", floor, n, floor, "msg"),
        ("parse_messages", t_parse, n, floor, "msg"),
        ("render_messages", t_render, n, floor, "msg"),
        ("parse_messages + render_messages", t_both, n, floor, "msg"),
        ("loads + parse + render + dumps", t_e2e, n, floor, "msg"),
        ("floor: for e in events: pass", t_loop, m, t_loop, "ev"),
        ("ref: class check + dict get + append", t_delta, m, t_loop, "ev"),
        ("fold(events)", t_fold, m, t_loop, "ev"),
        ("fold(events, full=True)", t_fold_full, m, t_loop, "ev"),
    ]
    for name, t, count, base, unit in rows:
        print(f"{name:<44}{t * 1e3:>10.1f}{count / t:>13,.0f} {unit:<3}{t / base:>9.1f}×")


if __name__ == "__main__":
    main()
