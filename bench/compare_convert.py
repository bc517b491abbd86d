"""Workload 1, inbound: Vercel UIMessages → canonical → Agenta messages, side by side.

The same corpus (``bench_vercel.build_corpus``: text, files, reasoning, data parts, tool parts in
every state, approvals) goes bytes in → bytes out through:

- turnwire: ``orjson.loads`` → ``vercel.parse_messages`` → ``agenta.render_messages`` → ``orjson.dumps``
- Agenta 0.125.1: ``orjson.loads`` → ``vercel_messages_to_agenta_messages`` → ``Message.to_wire`` →
  ``orjson.dumps`` (its own service uses ``json.dumps``; orjson here only flatters it)
- pydantic-ai: ``orjson.loads`` → ``UIMessage`` validation → ``VercelAIAdapter.load_messages`` →
  ``ModelMessagesTypeAdapter.dump_json`` (it converts to its own model messages: it has no Agenta
  output, so this is the nearest job it does)
- floor: ``orjson.loads`` + ``orjson.dumps`` of the same bytes (no conversion at all)

All four run round-robin, best of ``--repeat``; ratios are time ÷ time (lower is better for us).

    bench/.venv/bin/python bench/compare_convert.py [--messages 20000] [--repeat 5]
"""

from __future__ import annotations

import argparse

import orjson

from timing import interleaved, machine, quiet_references

quiet_references()

from agenta.sdk.agents.adapters.vercel import vercel_messages_to_agenta_messages  # noqa: E402
from pydantic import TypeAdapter  # noqa: E402
from pydantic_ai.messages import ModelMessagesTypeAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai import VercelAIAdapter  # noqa: E402
from pydantic_ai.ui.vercel_ai.request_types import UIMessage  # noqa: E402

from bench_vercel import build_corpus  # noqa: E402
from turnwire.formats import agenta, vercel  # noqa: E402

_ui_messages = TypeAdapter(list[UIMessage])


def turnwire_convert(raw: bytes) -> bytes:
    return orjson.dumps(agenta.render_messages(vercel.parse_messages(orjson.loads(raw))))


def agenta_convert(raw: bytes) -> bytes:
    return orjson.dumps([m.to_wire() for m in vercel_messages_to_agenta_messages(orjson.loads(raw))])


def pydantic_ai_convert(raw: bytes) -> bytes:
    loaded = VercelAIAdapter.load_messages(_ui_messages.validate_python(orjson.loads(raw)))
    return ModelMessagesTypeAdapter.dump_json(loaded)


def floor(raw: bytes) -> bytes:
    return orjson.dumps(orjson.loads(raw))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--messages", type=int, default=20_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    corpus = build_corpus(args.messages)
    raw = orjson.dumps(corpus)
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
    t = interleaved(runs, args.repeat)
    n = args.messages
    print(f"## Workload 1 — inbound: {n:,} UIMessages ({len(raw) / 1e6:.1f} MB) → Agenta messages\n")
    print(f"{machine()}; best of {args.repeat}, round-robin\n")
    print("| implementation | ms | messages/s | ÷ floor (time) | speed-up of turnwire (its time ÷ ours) |")
    print("|---|---|---|---|---|")
    for name, label in (
        ("turnwire", "turnwire (parse + render)"),
        ("agenta", "Agenta 0.125.1 converter"),
        ("pydantic-ai", "pydantic-ai loader (to its own messages)"),
        ("floor", "floor: orjson loads + dumps"),
    ):
        vs = "—" if name == "turnwire" else f"{t[name] / t['turnwire']:.2f}×"
        print(f"| {label} | {t[name] * 1e3:.1f} | {n / t[name]:,.0f} | {t[name] / t['floor']:.2f}× | {vs} |")
    print(
        f"\nturnwire is {t['agenta'] / t['turnwire']:.1f}× faster than Agenta and "
        f"{t['pydantic-ai'] / t['turnwire']:.1f}× faster than pydantic-ai; "
        f"{t['turnwire'] / t['floor']:.2f}× the floor (target ≤ 3×)."
    )


if __name__ == "__main__":
    main()
