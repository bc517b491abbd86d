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
import uuid
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


def build_short_corpus(n: int, seed: int = 17) -> list[dict[str, Any]]:
    """``n`` short UIMessages, ≈ 165 bytes each on average: a few words from the user; from the
    assistant ``step-start``, a short reasoning, one small tool part and a short text."""
    rng = random.Random(seed)
    words = ["ok", "ls", "yes", "run", "the", "tests", "done", "now", "fix", "it"]

    def few() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(1, 3)))

    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 2 == 0:
            out.append({"id": f"u{i}", "role": "user", "parts": [{"type": "text", "text": few()}]})
            continue
        tool: dict[str, Any] = {"type": "tool-ls", "toolCallId": f"c{i}", "input": {}}
        if rng.random() < 0.8:
            tool.update(state="output-available", output=few())
        else:
            tool["state"] = "input-available"
        parts = [
            {"type": "step-start"},
            {"type": "reasoning", "text": few(), "state": "done"},
            tool,
            {"type": "text", "text": few(), "state": "done"},
        ]
        out.append({"id": f"a{i}", "role": "assistant", "parts": parts})
    return out


def build_long_corpus(n: int, seed: int = 19) -> list[dict[str, Any]]:
    """``n`` long UIMessages (4–80 kB of text each): pasted documents and long answers."""
    rng = random.Random(seed)
    words = ["delete", "the", "build", "folder", "then", "rerun", "release", "checks", "on", "ci", "\n", "é"]

    def text() -> str:
        return " ".join(rng.choice(words) for _ in range(rng.randint(600, 12_000)))

    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 2 == 0:
            out.append({"id": f"u{i}", "role": "user", "parts": [{"type": "text", "text": text()}]})
            continue
        parts = [
            {"type": "step-start"},
            {"type": "reasoning", "text": text(), "state": "done"},
            {"type": "text", "text": text(), "state": "done"},
        ]
        out.append({"id": f"a{i}", "role": "assistant", "parts": parts})
    return out


def build_tool_corpus(n: int, seed: int = 23) -> list[dict[str, Any]]:
    """``n`` UIMessages of an agent loop: assistant messages of 4–12 tool parts (nested inputs and
    structured outputs, every state, dynamic tools, approvals) between short user turns."""
    rng = random.Random(seed)
    names = ["bash", "read_file", "grep", "edit", "web_search"]
    states = ["output-available"] * 6
    states += ["input-available", "output-error", "approval-responded", "output-denied"]
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 2 == 0:
            out.append({"id": f"u{i}", "role": "user", "parts": [{"type": "text", "text": "go on"}]})
            continue
        parts: list[dict[str, Any]] = [{"type": "step-start"}]
        for k in range(rng.randint(4, 12)):
            name, state = rng.choice(names), rng.choice(states)
            part: dict[str, Any] = {
                "type": "tool-" + name,
                "toolCallId": f"call_{i}_{k}",
                "state": state,
                "input": {"path": f"src/mod{k}.py", "options": {"limit": k, "recursive": k % 2 == 0}},
            }
            if k % 5 == 4:
                part["type"] = "dynamic-tool"
                part["toolName"] = name
            if state == "output-available":
                part["output"] = {"lines": [f"line {j}" for j in range(rng.randint(1, 6))], "exit": 0}
            elif state == "output-error":
                part["errorText"] = "permission denied"
            elif state in ("approval-responded", "output-denied"):
                part["approval"] = {"id": f"ap_{i}_{k}", "approved": state == "approval-responded"}
            parts.append(part)
            if k % 3 == 2:
                parts.append({"type": "step-start"})
        parts.append({"type": "text", "text": "Done.", "state": "done"})
        out.append({"id": f"a{i}", "role": "assistant", "parts": parts})
    return out


def build_file_corpus(n: int, seed: int = 29) -> list[dict[str, Any]]:
    """``n`` UIMessages heavy in files: user messages with 1–4 file parts (images and documents by
    URL, small inline ``data:`` URLs, uploaded attachments by id in ``providerMetadata``)."""
    rng = random.Random(seed)
    kinds = [("image/png", "png"), ("image/jpeg", "jpg"), ("application/pdf", "pdf"), ("text/csv", "csv")]
    inline = "data:image/png;base64," + "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4" * 4
    out: list[dict[str, Any]] = []
    for i in range(n):
        if i % 2 == 1:
            answer = {"type": "text", "text": "Here is what the files show.", "state": "done"}
            parts: list[dict[str, Any]] = [answer]
            out.append({"id": f"a{i}", "role": "assistant", "parts": parts})
            continue
        parts = [{"type": "text", "text": "what is in these?"}]
        for k in range(rng.randint(1, 4)):
            mime, ext = rng.choice(kinds)
            part: dict[str, Any] = {"type": "file", "mediaType": mime, "filename": f"f{i}-{k}.{ext}"}
            roll = rng.random()
            if roll < 0.5:
                part["url"] = f"https://files.example.com/{i}/{k}.{ext}"
            elif roll < 0.7:
                part["url"] = inline
            else:
                part["url"] = f"https://files.example.com/{i}/{k}.{ext}"
                uid = uuid.UUID(int=rng.getrandbits(128), version=4)
                part["providerMetadata"] = {"agenta": {"attachmentId": str(uid)}}
            parts.append(part)
        out.append({"id": f"u{i}", "role": "user", "parts": parts})
    return out


CORPORA: dict[str, tuple[Callable[[int], list[dict[str, Any]]], int, str]] = {
    "mixed": (build_corpus, 20_000, "text, files, reasoning, data, tool parts in every state, approvals"),
    "many short": (build_short_corpus, 40_000, "≈ 165 B per message: step-start, reasoning, one tool, text"),
    "few long": (build_long_corpus, 160, "4–80 kB texts and reasoning"),
    "tool-heavy": (build_tool_corpus, 6_000, "4–12 tool parts per assistant message, nested JSON"),
    "file-heavy": (build_file_corpus, 20_000, "1–4 file parts per user message: URLs, data URLs, ids"),
}
"""Workload 1's corpora: name → (builder, default message count, what it holds)."""


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
