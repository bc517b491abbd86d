"""bench/results.py: a benchmark run's tables spliced into RESULTS.md between markers, prose kept."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[3] / "bench"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_results", BENCH / "results.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


results = _load()

RESULTS = """# Benchmarks

- **Command:** `make bench`.
<!-- bench:run -->
- old stamp
<!-- /bench:run -->

## Workload 1

Curated prose about workload 1.

<!-- bench:convert -->

| old | table |
|---|---|
| 1 | 2 |

<!-- /bench:convert -->

More prose, with a | pipe that is not a table.

## Workload 2

<!-- bench:stream:1 -->
| old vercel |
<!-- /bench:stream:1 -->

Between the two tables.

<!-- bench:stream:2 -->
| old agenta |
<!-- /bench:stream:2 -->

## Workload 4

<!-- bench:load -->
| old load |
<!-- /bench:load -->

![throughput](plots/w4_throughput.png)
"""

CONVERT_MD = """## Workload 1 — generated

machine line

| corpus | ms |
|---|---|
| mixed | 1.0 |

- *mixed*: what it holds
"""

STREAM_MD = """## Workload 2

### → Vercel

| new vercel |
|---|

### → Agenta

| new agenta |
|---|
| row |
"""


def test_tables_of_finds_each_run_of_pipe_lines_in_order() -> None:
    assert results.tables_of(STREAM_MD) == ["| new vercel |\n|---|\n", "| new agenta |\n|---|\n| row |\n"]
    assert results.tables_of("no tables here\n") == []


def test_splice_replaces_only_the_blocks_between_markers_and_keeps_the_prose() -> None:
    tables = {"convert": results.tables_of(CONVERT_MD), "stream": results.tables_of(STREAM_MD)}
    out = results.splice(RESULTS, tables, "- new stamp")
    assert "| corpus | ms |\n|---|---|\n| mixed | 1.0 |" in out.text
    assert "| new vercel |" in out.text and "| new agenta |\n|---|\n| row |" in out.text
    assert "| old" not in out.text.replace("| old load |", "")
    assert "- new stamp" in out.text and "old stamp" not in out.text
    # Everything outside the markers is unchanged, in order.
    outside = [
        "# Benchmarks\n\n- **Command:** `make bench`.\n",
        "## Workload 1\n\nCurated prose about workload 1.\n\n",
        "More prose, with a | pipe that is not a table.\n\n## Workload 2\n\n",
        "Between the two tables.\n\n",
        "![throughput](plots/w4_throughput.png)\n",
    ]
    position = 0
    for piece in outside:
        position = out.text.index(piece, position) + len(piece)
    assert out.replaced == ["convert", "stream:1", "stream:2"]
    assert out.missing == ["load"]


def test_a_block_without_a_table_in_this_run_is_left_byte_for_byte() -> None:
    out = results.splice(RESULTS, {}, None)
    assert out.text == RESULTS
    assert out.replaced == [] and out.missing == ["convert", "stream:1", "stream:2", "load"]
    too_few = results.splice(RESULTS, {"stream": ["| only one |\n"]}, None)
    assert "| only one |" in too_few.text and "| old agenta |" in too_few.text


def test_splicing_twice_gives_the_same_file() -> None:
    tables = {"convert": results.tables_of(CONVERT_MD), "stream": results.tables_of(STREAM_MD)}
    once = results.splice(RESULTS, tables, "- stamp").text
    assert results.splice(once, tables, "- stamp").text == once


def test_blocks_keep_blank_lines_around_the_table_for_markdown() -> None:
    out = results.splice(RESULTS, {"convert": ["| a |\n|---|\n"]}, None).text
    assert "<!-- bench:convert -->\n\n| a |\n|---|\n\n<!-- /bench:convert -->" in out


def flat(text: str) -> str:
    """A wrapped bullet as one line."""
    return text.replace("\n  ", " ")


def test_stamp_names_machine_commit_and_when_each_table_was_written() -> None:
    when = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)
    written = {"convert": datetime(2026, 12, 1, 12, 20, tzinfo=UTC)}
    line = results.stamp(when, "Some CPU, 2 cores, 24 GiB RAM, Python 3.11.7, Linux", "`abc1234`", written)
    assert "2026-12-01 12:30 UTC" in line and "`abc1234`" in line and "Some CPU, 2 cores" in line
    assert "convert 12:20" in line
    assert line.startswith("- **Generated") and all(len(row) <= 100 for row in line.splitlines())
    assert "No table" in results.stamp(when, "m", "c", {})
    kept = flat(results.stamp(when, "m", "c", {}, ["fold", "load"]))
    assert "Kept from an earlier run (no table in this one): fold, load." in kept
    with_plots = flat(results.stamp(when, "m", "c", {}, plots=datetime(2026, 12, 1, 12, 25, tzinfo=UTC)))
    assert "Plots (`bench/plots/`, linked below) written at 2026-12-01 12:25 UTC." in with_plots


def test_machine_names_cpu_cores_ram_and_python() -> None:
    line = results.machine()
    assert " cores, " in line and " GiB RAM, Python 3." in line


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def test_commit_is_dirty_for_changed_code_but_not_for_what_a_run_rewrites(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "bench" / "plots").mkdir(parents=True)
    (repo / "src.py").write_text("x = 1\n")
    (repo / "bench" / "RESULTS.md").write_text(RESULTS)
    (repo / "bench" / "plots" / "p.png").write_bytes(b"png")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    assert results.commit(repo / "bench").endswith("`")
    (repo / "bench" / "RESULTS.md").write_text(RESULTS + "spliced\n")
    (repo / "bench" / "plots" / "p.png").write_bytes(b"new plot")
    assert "uncommitted" not in results.commit(repo / "bench")
    (repo / "src.py").write_text("x = 2\n")
    assert results.commit(repo / "bench").endswith("+ uncommitted changes")


def test_main_rewrites_the_file_from_the_out_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "convert.md").write_text(CONVERT_MD)
    target = tmp_path / "RESULTS.md"
    target.write_text(RESULTS)
    (tmp_path / "plots").mkdir()
    (tmp_path / "plots" / "w4.png").write_bytes(b"png")
    args = ["--results", str(target), "--out", str(out), "--plots", str(tmp_path / "plots")]
    assert results.main(args) == 0
    assert "Plots" not in target.read_text()  # no load table in this run: the plots are not its
    (out / "load.md").write_text("| new load |\n|---|\n")
    target.write_text(RESULTS)
    assert results.main(args) == 0
    text = target.read_text()
    assert "| new load |" in text
    assert "| mixed | 1.0 |" in text and "| old vercel |" in text
    assert "<!-- bench:run -->\n- **Generated by `make bench`:**" in text
    assert "Kept from an earlier run (no table in this one): stream:1, stream:2." in flat(text)
    assert "Plots (`bench/plots/`, linked below) written at" in flat(text)
    assert "2 tables spliced (convert, load)" in capsys.readouterr().out
