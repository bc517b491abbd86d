"""Benchmark the Vercel hot paths: UIMessages → canonical → Agenta dicts, and events → SSE bytes.

Run: .venv/bin/python bench/bench_vercel.py [--messages N] [--events N] [--repeat R]

Floors: ``orjson.loads`` + ``orjson.dumps`` of the same UIMessage corpus bytes (the least any
JSON-to-JSON conversion must do), and one ``orjson.dumps`` + SSE framing per frame of the same
turn's chunks (the least any encoder must do once the chunks exist). Each figure is the best of
``--repeat`` runs. A ratio is ours / floor in time: 2.0 means twice as long as the floor.
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

from turnwire.formats import agenta
from turnwire.formats.vercel import UIStreamEncoder, encode_sse, parse_messages
from turnwire.framing import SSE_DONE, sse_frame
from turnwire.model import (
    Done,
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)


def build_corpus(n: int, seed: int = 11) -> list[dict[str, Any]]:
    """``n`` UIMessages: text, files, reasoning, data parts and tool parts in every state."""
    rng = random.Random(seed)
    words = ["delete", "the", "build", "folder", "then", "rerun", "release", "checks", "on", "ci", "python"]

    def sentence() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(4, 30)))

    states = ["input-available", "output-available", "output-error", "approval-responded", "output-denied"]
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 2 == 0:
            parts: list[dict[str, Any]] = [{"type": "text", "text": sentence()}]
            if rng.random() < 0.2:
                parts.append({"type": "file", "mediaType": "image/png", "url": f"https://x/{i}.png"})
            out.append({"id": f"u{i}", "role": "user", "parts": parts})
            continue
        parts = [{"type": "step-start"}, {"type": "reasoning", "text": sentence(), "state": "done"}]
        for k in range(rng.randint(0, 3)):
            state = rng.choice(states)
            part: dict[str, Any] = {
                "type": "tool-bash",
                "toolCallId": f"c{i}-{k}",
                "state": state,
                "input": {"command": sentence()},
            }
            if state == "output-available":
                part["output"] = sentence()
            elif state == "output-error":
                part["errorText"] = sentence()
            elif state in ("approval-responded", "output-denied"):
                part["approval"] = {"id": f"ap{i}-{k}", "approved": state == "approval-responded"}
            parts.append(part)
        parts.append({"type": "text", "text": sentence(), "state": "done"})
        if rng.random() < 0.1:
            parts.append({"type": "data-progress", "id": "p", "data": {"pct": rng.randint(0, 100)}})
        out.append({"id": f"a{i}", "role": "assistant", "parts": parts})
    return out


def build_turn(n: int, seed: int = 13) -> list[Event]:
    """A turn of about ``n`` events: streamed text and reasoning with tool calls in between."""
    rng = random.Random(seed)
    events: list[Event] = []
    k = 0
    while len(events) < n:
        k += 1
        if k % 5 == 0:
            events += [
                ToolCall(f"c{k}", "bash", {"command": "ls"}),
                ToolCall(f"c{k}", "bash", raw_input={"command": "ls -la"}),
                ToolResult(f"c{k}", output="a.txt\nb.txt"),
            ]
        elif k % 7 == 0:
            events.append(ThoughtStart(f"r{k}"))
            events += [ThoughtDelta(f"r{k}", "hmm ") for _ in range(rng.randint(5, 20))]
            events.append(ThoughtEnd(f"r{k}"))
        else:
            events.append(MessageStart(f"m{k}"))
            events += [MessageDelta(f"m{k}", "token ") for _ in range(rng.randint(10, 60))]
            events.append(MessageEnd(f"m{k}"))
    events += [Usage(input=10, output=n), Done("end_turn")]
    return events


def best(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def encode_turn(events: list[Event]) -> bytes:
    enc = UIStreamEncoder("msg-1", "s-1")
    pieces = [encode_sse(enc.start())]
    for event in events:
        chunks = enc.encode(event)
        if chunks:
            pieces.append(encode_sse(chunks))
    pieces.append(encode_sse(enc.finish(), done=True))
    return b"".join(pieces)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    corpus = build_corpus(args.messages)
    raw = orjson.dumps(corpus)
    floor = best(lambda: orjson.dumps(orjson.loads(raw)), args.repeat)
    parse = best(lambda: parse_messages(orjson.loads(raw)), args.repeat)
    to_agenta = best(
        lambda: orjson.dumps(agenta.render_messages(parse_messages(orjson.loads(raw)))), args.repeat
    )

    events = build_turn(args.events)
    body = encode_turn(events)
    chunks = [orjson.loads(f[6:]) for f in body.split(b"\n\n") if f.startswith(b"data: {")]
    frame_floor = best(lambda: b"".join([sse_frame(c) for c in chunks]) + SSE_DONE, args.repeat)
    frames = best(lambda: encode_turn(events), args.repeat)

    n = args.messages
    print(f"python {platform.python_version()} on {platform.machine()}, {args.repeat} runs, best of")
    print(f"UIMessages ({n}, {len(raw) / 1e6:.1f} MB):")
    print(f"  orjson loads+dumps floor   {n / floor:12,.0f} msg/s")
    print(f"  vercel parse               {n / parse:12,.0f} msg/s   ratio {parse / floor:.2f}x floor")
    print(f"  vercel parse + agenta dump {n / to_agenta:12,.0f} msg/s   ratio {to_agenta / floor:.2f}x floor")
    print(f"Vercel SSE ({len(events)} events -> {len(chunks)} frames, {len(body) / 1e6:.1f} MB):")
    print(f"  orjson dumps+framing floor {len(chunks) / frame_floor:12,.0f} frames/s")
    rate = len(chunks) / frames
    print(f"  UIStreamEncoder + SSE      {rate:12,.0f} frames/s   ratio {frames / frame_floor:.2f}x floor")


if __name__ == "__main__":
    main()
