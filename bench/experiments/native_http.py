"""Over HTTP: ``load.py`` on a pure tree and a compiled tree (``native_build.py``), roles alternated.

Each run is one ``load.py`` with ``turnwire serve`` from one tree (``PYTHONPATH``), ``turnwire-base``
from the other (``--baseline-src``) and the floor; runs alternate which tree is which, since
``load.py`` runs its servers one after the other. Per tree, variant and level it prints the best
CPU per frame over the runs, its ratio to the best floor, and the median of each run's own ratio
(the floor of the same run).

    bench/.venv/bin/python bench/experiments/native_http.py --pure src --compiled /tmp/turnwire-cython/src \\
        [--runs 4] [--levels 100,1000] [--out /tmp/native-http]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

import orjson

BENCH = Path(__file__).resolve().parents[1]  # bench/: load.py


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pure", type=Path, required=True)
    ap.add_argument("--compiled", type=Path, required=True)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--levels", default="100,1000")
    ap.add_argument("--out", type=Path, default=Path("/tmp/native-http"))
    ap.add_argument("--summarize", action="store_true", help="only read the runs already in --out")
    args = ap.parse_args()
    trees = {"pure": args.pure.resolve(), "compiled": args.compiled.resolve()}
    for i in range(0 if args.summarize else args.runs):
        served, base = ("compiled", "pure") if i % 2 == 0 else ("pure", "compiled")
        out = args.out / f"run{i + 1}-{served}"
        out.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ, PYTHONPATH=str(trees[served]))
        cmd = [sys.executable, str(BENCH / "load.py"), "--baseline-src", str(trees[base])]
        cmd += ["--servers", "turnwire,floor", "--levels", args.levels, "--out", str(out)]
        cmd += ["--plots", str(out / "plots")]
        with open(out / "stdout.txt", "wb") as log:
            subprocess.run(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, check=True)
        print(f"run {i + 1}: turnwire = {served}, turnwire-base = {base}", flush=True)
    cpu: dict[tuple[str, str, int], list[float]] = {}
    ratios: dict[tuple[str, str, int], list[float]] = {}
    for run in sorted(args.out.glob("run*")):
        served = run.name.split("-", 1)[1]
        names = {"turnwire": served, "turnwire-base": "compiled" if served == "pure" else "pure"}
        levels = orjson.loads((run / "load.json").read_bytes())
        floor = {
            (lv["variant"], lv["streams"]): lv["cpu_us_per_frame"] for lv in levels if lv["server"] == "floor"
        }
        for lv in levels:
            tree = names.get(lv["server"], "floor")
            key = (tree, lv["variant"], lv["streams"])
            cpu.setdefault(key, []).append(lv["cpu_us_per_frame"])
            if lv["errors"]:
                print(f"{run.name}: {lv['server']} {lv['variant']} N={lv['streams']}: {lv['errors']} errors")
            ratios.setdefault(key, []).append(lv["cpu_us_per_frame"] / floor[(lv["variant"], lv["streams"])])
    print("| variant | N | tree | best CPU µs/frame | ÷ best floor | median per-run ÷ floor | runs |")
    print("|---|---|---|---|---|---|---|")
    for variant, streams in sorted({(v, n) for _, v, n in cpu}):
        best_floor = min(cpu[("floor", variant, streams)])
        for tree in ("pure", "compiled", "floor"):
            values = cpu.get((tree, variant, streams))
            if values:
                best, median = min(values), statistics.median(ratios[(tree, variant, streams)])
                print(
                    f"| {variant} | {streams:,} | {tree} | {best:.1f} | {best / best_floor:.2f}× "
                    f"| {median:.2f}× | {len(values)} |"
                )


if __name__ == "__main__":
    main()
