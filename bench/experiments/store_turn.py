"""The store path in process: this tree's store against another commit's, side by side.

Loads the store package of ``--against`` (default ``main``) from git under another name, opens
both on fresh SQLite files (or ``--store-url`` PostgreSQL databases) and measures, round robin,
best of ``--rounds``, the CPU time (``process_time``: every thread of the process) of:

- a recorded ``count to 10`` turn on a new session, as ``/invoke`` runs it without HTTP: the
  session lookup and insert, then ``TurnRecorder`` over the bench's ``fast_count`` agent
- the same with ``--concurrent`` turns at once (where group commit can apply)
- the recorder's flush alone (one new message, then one change), a session lookup of an
  existing task, a session insert
- workload 5's 1,000-message batch create and update, with its raw ``sqlite3`` floor in the same
  round robin (SQLite only)

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/store_turn.py [--against main] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE.parent))  # bench/: compare_store, count_agent
sys.path.insert(0, str(ROOT / "tests"))

import compare_store  # noqa: E402
from count_agent import fast_count  # noqa: E402
from turnwire.conversations.recording import TurnRecorder  # noqa: E402
from turnwire.conversations.stored import open_conversation  # noqa: E402
from turnwire.model import Message, TextBlock  # noqa: E402
from turnwire.runtime import TurnContext  # noqa: E402
from turnwire.store import NewRow, RowChange, SqlStore  # noqa: E402
from turnwire.store.clock import new_id, now_us  # noqa: E402

OLD = "tw_store_old"


def load_old(ref: str, into: Path) -> type:
    """``SqlStore`` of ``ref``'s ``src/turnwire/store``, importable as ``tw_store_old``."""
    names = subprocess.run(
        ["git", "-C", str(ROOT), "ls-tree", "--name-only", f"{ref}:src/turnwire/store"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    pkg = into / OLD
    pkg.mkdir()
    for name in names:
        text = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{ref}:src/turnwire/store/{name}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        text = text.replace("turnwire.store.", f"{OLD}.").replace(
            "from turnwire.store import", f"from {OLD} import"
        )
        (pkg / name).write_text(text)
    sys.path.insert(0, str(into))
    return importlib.import_module(OLD).SqlStore


async def turn(store: Any) -> None:
    """One recorded ``count to 10`` on a new session, as the ``/invoke`` pipeline runs it."""
    session = uuid.uuid4().hex
    messages = [Message("user", [TextBlock("count to 10")])]
    conversation = await open_conversation(store, session, messages)
    ctx = TurnContext(messages=messages, session_id=session)
    recorder = TurnRecorder(
        store, conversation.task_id, inbound=conversation.take_inbound(), clock=conversation.clock
    )
    async for _ in recorder.record(fast_count(ctx)):
        pass


async def turns(store: Any, n: int) -> None:
    await asyncio.gather(*(turn(store) for _ in range(n)))


async def flush(store: Any, task_id: str) -> None:
    now = now_us()
    mid = new_id()
    await store.write_flush(task_id, [NewRow(mid, '{"type":"text"}', "IN_PROGRESS", now, now)], [])
    await store.write_flush(task_id, [], [RowChange(mid, '{"type":"text","content":"x"}', "DONE", now + 1)])


async def lookup(store: Any, name: str) -> None:
    await store.session_task(name)


async def insert(store: Any) -> None:
    await store.session_task(uuid.uuid4().hex)


async def measure(
    stores: dict[str, Any], rounds: int, reps: int, work: Callable[[Any], Awaitable[None]]
) -> dict:
    best = {name: float("inf") for name in stores}
    for _ in range(rounds):
        for name, store in stores.items():
            start = time.process_time()
            for _ in range(reps):
                await work(store)
            best[name] = min(best[name], (time.process_time() - start) / reps)
    return best


class RawFloor:
    """compare_store's floor: stdlib ``sqlite3`` ``executemany`` of the same rows, one transaction each."""

    def __init__(self, path: str) -> None:
        self.conn = sqlite3.connect(path)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute(f"CREATE TABLE raw ({compare_store._COLUMNS})")
        self.batch = 0

    def create(self) -> list[tuple]:
        rows = compare_store._rows(self.batch)
        self.batch += 1
        with self.conn:
            self.conn.executemany("INSERT INTO raw VALUES (?,?,?,?,?,?,?)", rows)
        return rows

    def update(self, rows: list[tuple]) -> None:
        with self.conn:
            self.conn.executemany(
                "UPDATE raw SET content = ?, updated_at = ? WHERE id = ?", compare_store._updates(rows)
            )


async def batches(stores: dict[str, Any], floor: RawFloor, rounds: int) -> dict[str, list[float]]:
    """Best CPU seconds per 1,000-message batch create and update (round robin with the floor)."""
    best = {name: [float("inf"), float("inf")] for name in [*stores, "floor"]}
    tasks = {name: (await s.create_task(name=uuid.uuid4().hex))["id"] for name, s in stores.items()}
    for r in range(rounds):
        start = time.process_time()
        rows = floor.create()
        mid = time.process_time()
        floor.update(rows)
        end = time.process_time()
        best["floor"] = [min(best["floor"][0], mid - start), min(best["floor"][1], end - mid)]
        for name, store in stores.items():
            contents = compare_store._contents(compare_store.BATCH, f"{name} {r}")
            start = time.process_time()
            created = await store.create_messages(tasks[name], contents)
            mid = time.process_time()
            await store.update_messages(
                tasks[name], {m["id"]: compare_store._edit(i) for i, m in enumerate(created)}
            )
            end = time.process_time()
            best[name] = [min(best[name][0], mid - start), min(best[name][1], end - mid)]
    return best


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--against", default="main")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--concurrent", type=int, default=50)
    ap.add_argument("--batch-rounds", type=int, default=15)
    ap.add_argument(
        "--store-url", default="", help="a PostgreSQL URL for both stores (default: SQLite files)"
    )
    args = ap.parse_args()
    import turnwire

    print(f"turnwire from {Path(turnwire.__file__).parent}; baseline: {args.against}")
    with tempfile.TemporaryDirectory() as tmp:
        Old = load_old(args.against, Path(tmp))
        stores = {
            args.against: Old(args.store_url or f"sqlite:///{tmp}/old.db"),
            "this tree": SqlStore(args.store_url or f"sqlite:///{tmp}/new.db"),
        }
        for store in stores.values():
            await store.open()
        tasks = {name: (await s.session_task("bench")).task["id"] for name, s in stores.items()}
        for store in stores.values():  # warm-up
            for _ in range(20):
                await turn(store)
        rows = [
            (
                "recorded `count to 10`, new session",
                await measure(stores, args.rounds, args.reps // 2, turn),
                1,
            ),
            (
                f"{args.concurrent} such turns at once (per turn)",
                await measure(stores, args.rounds, 2, lambda s: turns(s, args.concurrent)),
                args.concurrent,
            ),
            (
                "recorder flush (insert, then update)",
                await measure(
                    stores,
                    args.rounds,
                    args.reps,
                    lambda s: flush(s, tasks[next(k for k, v in stores.items() if v is s)]),
                ),
                2,
            ),
            (
                "session lookup (existing task)",
                await measure(stores, args.rounds, args.reps, lambda s: lookup(s, "bench")),
                1,
            ),
            ("session insert (new task)", await measure(stores, args.rounds, args.reps, insert), 1),
        ]
        old, new = stores
        print(f"\n| operation | {old} µs CPU | this tree µs CPU | this tree ÷ {old} |")
        print("|---|---|---|---|")
        for label, best, per in rows:
            a, b = best[old] / per * 1e6, best[new] / per * 1e6
            print(f"| {label} | {a:,.0f} | {b:,.0f} | {b / a:.2f}× |")
        if args.store_url:  # the batch rows compare with the SQLite floor only
            for store in stores.values():
                await store.close()
            return
        best = await batches(stores, RawFloor(f"{tmp}/raw.db"), args.batch_rounds)
        head = (
            f"| 1,000-message batch | floor µs CPU | {old} | this tree | {old} ÷ floor | this tree ÷ floor |"
        )
        print(f"\n{head}")
        print("|---|---|---|---|---|---|")
        for i, op in enumerate(("create", "update")):
            f, a, b = best["floor"][i], best[old][i], best[new][i]
            print(
                f"| {op} | {f * 1e6:,.0f} | {a * 1e6:,.0f} | {b * 1e6:,.0f} | {a / f:.2f}× | {b / f:.2f}× |"
            )
        for store in stores.values():
            await store.close()


if __name__ == "__main__":
    asyncio.run(main())
