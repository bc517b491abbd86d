"""The store's part of a recorded turn on SQLite, alone: CPU per turn through ``SqlStore``.

Each round runs ``--concurrent`` new-session turns at once, each as the served app makes them: the
session lookup-or-create (``session_task``), then ``--flushes`` recorder flushes (``write_flush``)
of the turn's ``count to 10`` messages (the first holds the inbound message and the opened answer,
the last the rest, closed). ``sql floor`` runs the same statements straight on one connection in
one thread, every turn of the round in one transaction: what the SQL itself costs, no hand-off.
CPU of the whole process (every thread), round robin, best of ``--rounds``.

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/store_turn_sql.py [--concurrent 100] [--rounds 7]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sqlite3
import sys
import tempfile
import time
import uuid

import orjson

from turnwire.store import open_store
from turnwire.store.base import NewRow, RowChange
from turnwire.store.clock import new_id, now_us

MESSAGES = 11  # the inbound message and count to 10's ten answers
_TEXT = orjson.dumps({"type": "text", "author": "agent", "content": "7", "format": "markdown"}).decode()
_names = itertools.count()


def _rows(n: int, status: str) -> list[NewRow]:
    now = now_us()
    return [NewRow(new_id(), _TEXT, status, now + i, now + i) for i in range(n)]


async def _turn(store: object, flushes: int) -> None:
    found = await store.session_task(f"s{next(_names)}")  # type: ignore[attr-defined]
    task_id = found.task["id"]
    if flushes == 1:
        await store.write_flush(task_id, _rows(MESSAGES, "DONE"), [])  # type: ignore[attr-defined]
        return
    first = _rows(2, "IN_PROGRESS")
    await store.write_flush(task_id, first, [])  # type: ignore[attr-defined]
    closing = [RowChange(first[1].id, _TEXT, "DONE", now_us())]
    await store.write_flush(task_id, _rows(MESSAGES - 2, "DONE"), closing)  # type: ignore[attr-defined]


def _sql_floor(path: str, n: int) -> float:
    """The same SQL on one connection, ``n`` turns in one transaction; CPU per turn."""
    from turnwire.store import flushes, tasks

    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("PRAGMA foreign_keys=ON")
    t = time.process_time()
    conn.execute("BEGIN IMMEDIATE")
    for _ in range(n):
        sid, tid, now = f"s{next(_names)}", str(uuid.uuid4()), now_us()
        conn.execute(tasks._SESSION_SQLITE, (sid, sid, "")).fetchall()
        conn.execute(tasks._CREATE_SQLITE, (tid, sid, now, now, ""))
        flushes._flush_sqlite(conn, tid, _rows(MESSAGES, "DONE"), [], None)
    conn.execute("COMMIT")
    spent = time.process_time() - t
    conn.close()
    return spent / n


async def main_async(args: argparse.Namespace) -> None:
    import turnwire

    print(f"turnwire from {turnwire.__file__}", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        store = await open_store(f"sqlite:///{tmp}/turns.db")
        floor_path = f"{tmp}/floor.db"
        floor_store = await open_store(f"sqlite:///{floor_path}")
        await floor_store.close()
        best = {"store": float("inf"), "sql floor": float("inf")}
        wall = float("inf")
        try:
            await asyncio.gather(*(_turn(store, args.flushes) for _ in range(10)))  # warm up
            for _ in range(args.rounds):
                t, w = time.process_time(), time.perf_counter()
                await asyncio.gather(*(_turn(store, args.flushes) for _ in range(args.concurrent)))
                best["store"] = min(best["store"], (time.process_time() - t) / args.concurrent)
                wall = min(wall, (time.perf_counter() - w) / args.concurrent)
                best["sql floor"] = min(best["sql floor"], _sql_floor(floor_path, args.concurrent))
        finally:
            await store.close()
    print(f"store      {best['store'] * 1e6:7.1f} µs CPU/turn  (wall {wall * 1e6:6.1f} µs/turn)")
    print(f"sql floor  {best['sql floor'] * 1e6:7.1f} µs CPU/turn")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--concurrent", type=int, default=100)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--flushes", type=int, choices=(1, 2), default=2, help="recorder flushes per turn")
    import uvloop

    uvloop.run(main_async(p.parse_args()))


if __name__ == "__main__":
    main()
