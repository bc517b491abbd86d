"""Splice the tables of a benchmark run into RESULTS.md, and stamp the run: machine, date, commit.

RESULTS.md is prose written by hand around generated tables. Each table sits between markers:

    <!-- bench:convert -->            the first table of out/convert.md
    | ... |
    <!-- /bench:convert -->

``bench:NAME:K`` takes the K-th table (from 1) of ``out/NAME.md``; a table is a run of lines
starting with ``|``. ``<!-- bench:run -->`` … ``<!-- /bench:run -->`` receives the stamp. Only text
between markers changes; a block whose table this run did not produce keeps what it had, and the
stamp says which tables are new. ``make -C bench all`` runs this last.

    bench/.venv/bin/python bench/results.py [--results RESULTS.md] [--out out] [--plots plots]
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).resolve().parent
MARKER = re.compile(r"<!-- bench:(?P<label>[\w-]+(?::\d+)?) -->\n.*?<!-- /bench:(?P=label) -->", re.S)
RUN = "run"
REWRITTEN_BY_A_RUN = ("RESULTS.md", "plots", "out")
"""Paths in bench/ a run itself rewrites: their changes do not make the measured tree "dirty"."""


def tables_of(markdown: str) -> list[str]:
    """The tables of a markdown text, in order, each as its lines joined (ending in a newline)."""
    tables: list[list[str]] = []
    inside = False
    for line in markdown.splitlines():
        if line.startswith("|"):
            if not inside:
                tables.append([])
            tables[-1].append(line)
            inside = True
        else:
            inside = False
    return ["\n".join(t) + "\n" for t in tables]


@dataclass(frozen=True)
class Spliced:
    text: str
    replaced: list[str]
    """Marker names whose block got a new table, in file order."""
    missing: list[str]
    """Marker names with no table in this run (their blocks are kept)."""


def splice(results: str, tables: Mapping[str, Sequence[str]], stamp: str | None) -> Spliced:
    """``results`` with each ``bench:NAME[:K]`` block replaced by ``tables[NAME][K-1]`` and the
    ``bench:run`` block by ``stamp``; blocks without a table (or a ``None`` stamp) stay as they are."""
    replaced: list[str] = []
    missing: list[str] = []

    def block(match: re.Match[str]) -> str:
        label = match["label"]
        name, _, k = label.partition(":")
        if name == RUN:
            body = stamp
        else:
            found = tables.get(name, ())
            index = int(k or 1) - 1
            body = found[index] if 0 <= index < len(found) else None
            (missing if body is None else replaced).append(label)
        if body is None:
            return match[0]
        if name == RUN:
            return f"<!-- bench:{label} -->\n{body.strip()}\n<!-- /bench:{label} -->"
        # Blank lines around a table: it must not run into the comments in markdown.
        return f"<!-- bench:{label} -->\n\n{body.strip()}\n\n<!-- /bench:{label} -->"

    return Spliced(MARKER.sub(block, results), replaced, missing)


def machine() -> str:
    """CPU model, cores, RAM, Python and OS of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return (
        f"{cpu}, {os.cpu_count()} cores, {ram:.0f} GiB RAM, Python {platform.python_version()}, "
        f"{platform.system()}"
    )


def commit(bench: Path = HERE) -> str:
    """The checked-out commit, ``+ uncommitted changes`` when tracked files differ from it; what a
    run itself rewrites in ``bench`` (RESULTS.md, plots, raw tables) does not count."""

    def git(*args: str) -> str:
        run = subprocess.run(["git", "-C", str(bench), *args], capture_output=True, text=True)
        return run.stdout.strip()

    sha = git("rev-parse", "--short", "HEAD") or "unknown"
    excluded = [f":(exclude){p}" for p in REWRITTEN_BY_A_RUN]
    dirty = git("status", "--porcelain", "--untracked-files=no", "--", ":/", *excluded)
    return f"`{sha}`" + (" + uncommitted changes" if dirty else "")


def stamp(
    when: datetime,
    machine_line: str,
    commit_line: str,
    written: Mapping[str, datetime],
    kept: Sequence[str] = (),
    plots: datetime | None = None,
) -> str:
    """The ``bench:run`` block: what ran where, when each raw table was written, which blocks kept
    an earlier run's table. Wrapped as the hand-written bullets around it are."""
    if written:
        times = ", ".join(f"{name} {t:%H:%M}" for name, t in written.items())
        which = f"Tables spliced from `bench/out/*.md` written at {times} UTC."
    else:
        which = "No table was spliced (no `bench/out/*.md`)."
    if kept:
        which += f" Kept from an earlier run (no table in this one): {', '.join(kept)}."
    if plots is not None:
        which += f" Plots (`bench/plots/`, linked below) written at {plots:%Y-%m-%d %H:%M} UTC."
    text = (
        f"**Generated by `make bench`:** {when:%Y-%m-%d %H:%M} UTC, commit {commit_line}, on "
        f"{machine_line}. {which} Every table between `bench:` markers is rewritten by each run "
        f"(`bench/results.py`); the prose around them is written by hand and names the run it quotes."
    )
    return textwrap.fill(text, width=100, initial_indent="- ", subsequent_indent="  ", break_on_hyphens=False)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=Path, default=HERE / "RESULTS.md")
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--plots", type=Path, default=HERE / "plots")
    args = ap.parse_args(argv)

    outs = sorted(args.out.glob("*.md")) if args.out.is_dir() else []
    tables = {p.stem: tables_of(p.read_text()) for p in outs}
    written = {p.stem: datetime.fromtimestamp(p.stat().st_mtime, UTC) for p in outs}
    text = args.results.read_text()
    kept = splice(text, tables, None).missing
    # The plots are drawn by the load workload: named only with its table, else their time is a checkout's.
    pngs = [p.stat().st_mtime for p in args.plots.glob("*.png")] if args.plots.is_dir() else []
    plots = datetime.fromtimestamp(max(pngs), UTC) if pngs and "load" in tables else None
    line = stamp(datetime.now(UTC), machine(), commit(args.results.resolve().parent), written, kept, plots)
    result = splice(text, tables, line)
    tmp = args.results.with_suffix(".md.tmp")
    tmp.write_text(result.text)
    tmp.replace(args.results)
    print(f"{args.results}: {len(result.replaced)} tables spliced ({', '.join(result.replaced) or 'none'})")
    if result.missing:
        print(f"  kept (no table in this run): {', '.join(result.missing)}", file=sys.stderr)
    unused = sorted(
        f"{name}:{k}" for name, ts in tables.items() for k in range(1, len(ts) + 1)
        if f"{name}:{k}" not in result.replaced and not (k == 1 and name in result.replaced)
    )  # fmt: skip
    if unused:
        print(f"  tables with no marker in {args.results.name}: {', '.join(unused)}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
