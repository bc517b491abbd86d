"""The library path's bound: what ``turnwire.convert()`` on small conversations could reach.

On conversations of ``--size`` messages cut from a corpus (as the library table of
``compare_convert.py``), round-robin, best of ``--repeat`` in CPU time, bytes in → bytes out:

- **convert**: ``orjson.loads`` → ``turnwire.convert(source="vercel", target="agenta")`` → ``orjson.dumps``
- **bare objects**: the same canonical objects built with no check at all (every part assumed to be
  of the many-short corpus's four shapes), then turnwire's ``agenta.render_messages``: the least a
  path through the canonical model can cost (many short only)
- **dict → dict**: ``convert_alternatives.dict_to_dict``, no canonical objects (needs ``msgspec``)
- **floor**: ``orjson.loads`` + ``orjson.dumps``

    python bench/experiments/convert_small_bound.py [--corpus "many short"] [--size 4] [--repeat 7]
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent  # bench/experiments: the sibling experiments
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # bench/: the workloads this experiment reuses

from convert_alternatives import dict_to_dict  # noqa: E402

from bench_vercel import CORPORA  # noqa: E402
from compare_convert import conversations  # noqa: E402
from turnwire import convert  # noqa: E402
from turnwire.formats import agenta  # noqa: E402
from turnwire.model import Message, ReasoningBlock, TextBlock, ToolCallBlock, ToolResultBlock  # noqa: E402


def bare_parse(raw: list[dict[str, Any]]) -> list[Message]:
    """The many-short corpus's UIMessages as canonical messages, nothing checked."""
    out = []
    for m in raw:
        blocks: list[Any] = []
        for p in m["parts"]:
            kind = p["type"]
            if kind == "text":
                blocks.append(TextBlock(p["text"]))
            elif kind == "reasoning":
                blocks.append(ReasoningBlock(p["text"], None, None))
            elif kind.startswith("tool-"):
                blocks.append(ToolCallBlock(p["toolCallId"], kind[5:], p.get("input")))
                if "output" in p:
                    blocks.append(ToolResultBlock(p["toolCallId"], kind[5:], p["output"], False))
        out.append(Message(m["role"], blocks, m.get("id")))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="many short", choices=list(CORPORA))
    ap.add_argument("--size", type=int, default=4, help="messages per conversation")
    ap.add_argument("--calls", type=int, default=4000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    bodies = conversations(CORPORA[args.corpus][0](1024), args.size, args.calls)

    def each(fn: Callable[[bytes], bytes]) -> Callable[[], None]:
        def run() -> None:
            for body in bodies:
                fn(body)

        return run

    def library(body: bytes) -> bytes:
        return orjson.dumps(convert(orjson.loads(body), source="vercel", target="agenta"))

    def bare(body: bytes) -> bytes:
        return orjson.dumps(agenta.render_messages(bare_parse(orjson.loads(body))))

    expected = [library(b) for b in bodies[:200]]
    assert [dict_to_dict(b) for b in bodies[:200]] == expected, "dict → dict disagrees"
    runs = {"floor": each(lambda b: orjson.dumps(orjson.loads(b))), "convert": each(library)}
    if args.corpus == "many short":
        assert [bare(b) for b in bodies[:200]] == expected, "bare objects disagree"
        runs["bare objects"] = each(bare)
    runs["dict → dict"] = each(dict_to_dict)
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(args.repeat):
        for name, run in runs.items():
            gc.collect()
            t0 = time.process_time()
            run()
            best[name] = min(best[name], time.process_time() - t0)
    print(f"{args.corpus}, {args.size} messages per call, {len(bodies):,} calls, best of {args.repeat}")
    for name, t in best.items():
        print(f"{name:14s} {t * 1e6 / len(bodies):8.2f} µs per call  {t / best['floor']:.2f}× the floor")


if __name__ == "__main__":
    main()
