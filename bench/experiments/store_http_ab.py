"""Workload 5 over HTTP for two source trees side by side.

The Agentex batch routes of each tree run in their own uvicorn process (``bench_store.server``,
``PYTHONPATH`` set to that tree's ``src``), on SQLite files; one client alternates 1,000-message
batch creates and updates between them, with compare_store's raw ``sqlite3`` floor in the same
rounds. Totals per operation of wall time (as compare_store reports them) and, steadier on a
shared machine, of the server process's CPU time (every thread, from ``/proc/<pid>/task/*/schedstat``)
against the floor's CPU time.

    bench/.venv/bin/python bench/experiments/store_http_ab.py --against /work/main/src [--batches 30]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import orjson

HERE = Path(__file__).resolve().parent  # bench/experiments: the sibling experiments
BENCH = HERE.parent  # bench/: the workloads and tools this experiment reuses
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

import compare_store  # noqa: E402
from bench_store import BATCH, _contents, _task  # noqa: E402
from services import free_port  # noqa: E402


def cpu_s(pid: int) -> float:
    """CPU seconds of every thread of ``pid`` so far (nanosecond counters)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with contextlib.suppress(OSError), open(f"/proc/{pid}/task/{task}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e9


@contextlib.contextmanager
def server(src: str, db_url: str) -> Iterator[tuple[str, int]]:
    """bench_store's server process with ``src`` first on the path; (base URL, pid)."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=src)
    cmd = [sys.executable, str(BENCH / "bench_store.py"), "--serve", db_url, str(port)]
    proc = subprocess.Popen(cmd, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(400):
            with contextlib.suppress(httpx.TransportError):
                httpx.get(base + "/agents", timeout=1)
                break
            time.sleep(0.05)
        yield base, proc.pid
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", required=True, help="the other tree's src directory")
    ap.add_argument("--batches", type=int, default=30)
    args = ap.parse_args()
    trees = {"baseline": args.against, "this tree": str(BENCH.parent / "src")}
    headers = {"content-type": "application/json"}
    total = {name: [0.0, 0.0] for name in [*trees, "floor"]}
    cpu = {name: [0.0, 0.0] for name in [*trees, "floor"]}
    # Per batch, for the median and best: (wall, CPU) of each operation.
    each: dict[str, list[list[tuple[float, float]]]] = {name: [[], []] for name in [*trees, "floor"]}
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        clients, tasks, pids = {}, {}, {}
        for name, src in trees.items():
            base, pids[name] = stack.enter_context(
                server(src, f"sqlite:///{tmp}/{name.replace(' ', '_')}.db")
            )
            http = stack.enter_context(httpx.Client(base_url=base, timeout=120))
            clients[name], tasks[name] = http, _task(http)
            warm = orjson.dumps({"task_id": tasks[name], "contents": _contents(BATCH, "warm-up")})
            http.post("/messages/batch", content=warm, headers=headers).raise_for_status()
        raw = sqlite3.connect(f"{tmp}/raw.db")
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("PRAGMA synchronous=NORMAL")
        raw.execute(f"CREATE TABLE raw ({compare_store._COLUMNS})")
        for b in range(args.batches):
            rows = compare_store._rows(b)
            updates = compare_store._updates(rows)
            start, c0 = time.perf_counter(), time.process_time()
            with raw:
                raw.executemany("INSERT INTO raw VALUES (?,?,?,?,?,?,?)", rows)
            mid, c1 = time.perf_counter(), time.process_time()
            with raw:
                raw.executemany("UPDATE raw SET content = ?, updated_at = ? WHERE id = ?", updates)
            end, c2 = time.perf_counter(), time.process_time()
            total["floor"][0] += mid - start
            total["floor"][1] += end - mid
            cpu["floor"][0] += c1 - c0
            cpu["floor"][1] += c2 - c1
            each["floor"][0].append((mid - start, c1 - c0))
            each["floor"][1].append((end - mid, c2 - c1))
            for name, http in clients.items():
                body = orjson.dumps({"task_id": tasks[name], "contents": _contents(BATCH, str(b))})
                start, c0 = time.perf_counter(), cpu_s(pids[name])
                resp = http.post("/messages/batch", content=body, headers=headers)
                wall, spent = time.perf_counter() - start, cpu_s(pids[name]) - c0
                total[name][0] += wall
                cpu[name][0] += spent
                each[name][0].append((wall, spent))
                resp.raise_for_status()
                ids = [m["id"] for m in resp.json()]
                edits = {mid: compare_store._edit(i) for i, mid in enumerate(ids)}
                body = orjson.dumps({"task_id": tasks[name], "updates": edits})
                start, c0 = time.perf_counter(), cpu_s(pids[name])
                resp = http.put("/messages/batch", content=body, headers=headers)
                wall, spent = time.perf_counter() - start, cpu_s(pids[name]) - c0
                total[name][1] += wall
                cpu[name][1] += spent
                each[name][1].append((wall, spent))
                resp.raise_for_status()
                assert len(resp.json()) == BATCH
        raw.close()
    n = args.batches * BATCH
    print(f"baseline: {args.against}\n")
    cols = (
        "operation",
        "floor msg/s",
        "baseline msg/s",
        "this tree msg/s",
        "baseline ÷ floor",
        "this tree ÷ floor",
    )
    print("| " + " | ".join(cols) + " |")
    print("|---|---|---|---|---|---|")
    for i, op in enumerate(("batch create", "batch update")):
        f, a, b = (total[k][i] for k in ("floor", "baseline", "this tree"))
        print(f"| {op} | {n / f:,.0f} | {n / a:,.0f} | {n / b:,.0f} | {a / f:.2f}× | {b / f:.2f}× |")
    print("\nCPU time: the server process (all threads) against the floor's")
    cols = (
        "operation",
        "floor µs/msg",
        "baseline µs/msg",
        "this tree µs/msg",
        "baseline ÷ floor",
        "this tree ÷ floor",
    )
    print("| " + " | ".join(cols) + " |")
    print("|---|---|---|---|---|---|")
    for i, op in enumerate(("batch create", "batch update")):
        f, a, b = (cpu[k][i] for k in ("floor", "baseline", "this tree"))
        per = [f"{x / n * 1e6:.2f}" for x in (f, a, b)]
        print(f"| {op} | {' | '.join(per)} | {a / f:.2f}× | {b / f:.2f}× |")

    print("\nPer batch, median and best (ms of wall / of server CPU), ratios to the floor's same statistic")
    cols = (
        "operation",
        "statistic",
        "floor wall / CPU",
        "baseline",
        "this tree",
        "baseline ÷ floor",
        "this tree ÷ floor",
    )
    print("| " + " | ".join(cols) + " |")
    print("|---|---|---|---|---|---|---|")
    for i, op in enumerate(("batch create", "batch update")):
        for stat, pick in (("median", statistics.median), ("best", min)):
            got = {k: [pick(x[j] for x in each[k][i]) * 1e3 for j in (0, 1)] for k in each}
            f, a, b = got["floor"], got["baseline"], got["this tree"]
            ms = " | ".join(f"{x[0]:.2f} / {x[1]:.2f}" for x in (f, a, b))
            ratios = " | ".join(f"{x[0] / f[0]:.2f}× / {x[1] / f[1]:.2f}×" for x in (a, b))
            print(f"| {op} | {stat} | {ms} | {ratios} |")


if __name__ == "__main__":
    main()
