"""In-process A/B of source trees (pure and compiled, ``native_build.py``) with ``serve_inproc.py``.

Runs ``serve_inproc.py`` once per tree per alternation, round robin (``PYTHONPATH`` = the tree;
each run checks where turnwire was imported from), and prints, per tree and app, the best CPU
per request over all alternations, and the ratio to the floor: best-of against the best floor,
and the median of each run's own ratio (its floor measured in the same process, seconds apart).

    bench/.venv/bin/python bench/experiments/native_ab.py pure=src mypyc=/tmp/turnwire-mypyc/src \\
        cython=/tmp/turnwire-cython/src [--alternations 6] [-- --rounds 5 --n 10]

Arguments after ``--`` go to ``serve_inproc.py``.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent  # bench/experiments: serve_inproc.py
ROW = re.compile(r"^(?P<app>\w+)\s+(?P<us>\d+) µs/request")


def one_run(tree: Path, extra: list[str]) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.run(
        [sys.executable, str(HERE / "serve_inproc.py"), *extra],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    origin = proc.stderr.split("turnwire from ", 1)[1].split()[0]
    if not origin.startswith(str(tree)):
        raise RuntimeError(f"turnwire came from {origin}, not {tree}")
    return {m["app"]: float(m["us"]) for line in proc.stdout.splitlines() if (m := ROW.match(line))}


def main() -> None:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs="+", help="name=path of a src tree")
    ap.add_argument("--alternations", type=int, default=6)
    args = ap.parse_args(argv)
    trees = {name: Path(path).resolve() for name, path in (t.split("=", 1) for t in args.trees)}
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
    for i in range(args.alternations):
        for name, tree in trees.items():
            result = one_run(tree, extra)
            runs[name].append(result)
            print(f"[{i + 1}] {name:8} " + "  ".join(f"{a} {v:.0f}" for a, v in result.items()), flush=True)
    floor = min(r["floor"] for rs in runs.values() for r in rs)
    print(f"\nbest floor over all runs: {floor:.0f} µs/request")
    print("| tree | app | best µs/request | best ÷ best floor | median of per-run ratio to its floor |")
    print("|---|---|---|---|---|")
    for name, rs in runs.items():
        for app in rs[0]:
            best = min(r[app] for r in rs)
            ratio = statistics.median(r[app] / r["floor"] for r in rs)
            print(f"| {name} | {app} | {best:.0f} | {best / floor:.2f}× | {ratio:.2f}× |")


if __name__ == "__main__":
    main()
