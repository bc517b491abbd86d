"""Workload 5, store: batch create and batch update of 1,000-message batches, SQLite and PostgreSQL.

For each database, in one run:

- floor: raw ``executemany`` of the same rows (stdlib ``sqlite3`` / ``asyncpg``) into a table of the
  store's columns, one transaction per batch: INSERT for create, UPDATE by id for update
- turnwire store in-process: ``SqlStore.create_messages`` / ``update_messages`` (no HTTP)
- turnwire over HTTP: ``POST /messages/batch`` / ``PUT /messages/batch`` against the Agentex routes in
  their own uvicorn process (``bench_store.server``), one client, sequential batches

PostgreSQL is a throwaway server started like the tests do (``tests/services.py``).
There is no reference to compare here: Agentex's own server needs MongoDB and its full stack.

    bench/.venv/bin/python bench/compare_store.py [--batches 30] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import tempfile
import time
import uuid

import httpx
import orjson

from bench_store import BATCH, _contents, _task, server
from services import postgres_server
from timing import machine
from turnwire.store import SqlStore

_COLUMNS = (
    "id TEXT PRIMARY KEY, task_id TEXT NOT NULL, seq BIGINT NOT NULL, content TEXT NOT NULL, "
    "streaming_status TEXT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE(task_id, seq)"
)


def _rows(batch: int) -> list[tuple]:
    now = time.time_ns() // 1000
    return [
        (uuid.uuid4().hex, "raw", batch * BATCH + i, orjson.dumps(c).decode(), None, now + i, now + i)
        for i, c in enumerate(_contents(BATCH, f"raw {batch}"))
    ]


def _updates(rows: list[tuple]) -> list[tuple]:
    now = time.time_ns() // 1000
    return [(orjson.dumps(_edit(i)).decode(), now + i, r[0]) for i, r in enumerate(rows)]


def _edit(i: int) -> dict:
    return {"type": "text", "author": "agent", "content": f"edited message {i} " + "y" * 80}


def raw_sqlite(path: str, batches: int) -> tuple[float, float]:
    """Messages/s of raw INSERT and UPDATE ``executemany``, one transaction per 1,000 rows."""
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(f"CREATE TABLE raw ({_COLUMNS})")
    t_create = t_update = 0.0
    for b in range(batches):
        rows = _rows(b)
        start = time.perf_counter()
        with conn:
            conn.executemany("INSERT INTO raw VALUES (?,?,?,?,?,?,?)", rows)
        t_create += time.perf_counter() - start
        updates = _updates(rows)
        start = time.perf_counter()
        with conn:
            conn.executemany("UPDATE raw SET content = ?, updated_at = ? WHERE id = ?", updates)
        t_update += time.perf_counter() - start
    conn.close()
    return batches * BATCH / t_create, batches * BATCH / t_update


async def raw_postgres(url: str, batches: int) -> tuple[float, float]:
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    await conn.execute(f"CREATE TABLE raw ({_COLUMNS})")
    t_create = t_update = 0.0
    for b in range(batches):
        rows = _rows(b)
        start = time.perf_counter()
        async with conn.transaction():
            await conn.executemany("INSERT INTO raw VALUES ($1,$2,$3,$4,$5,$6,$7)", rows)
        t_create += time.perf_counter() - start
        updates = _updates(rows)
        start = time.perf_counter()
        async with conn.transaction():
            await conn.executemany("UPDATE raw SET content = $1, updated_at = $2 WHERE id = $3", updates)
        t_update += time.perf_counter() - start
    await conn.close()
    return batches * BATCH / t_create, batches * BATCH / t_update


async def in_process(url: str, batches: int) -> tuple[float, float]:
    """Messages/s of the store's own batch create and update, without HTTP."""
    async with SqlStore(url) as store:
        task = (await store.create_task(name=uuid.uuid4().hex))["id"]
        await store.create_messages(task, _contents(BATCH, "warm-up"))
        t_create = t_update = 0.0
        for b in range(batches):
            contents = _contents(BATCH, str(b))
            start = time.perf_counter()
            created = await store.create_messages(task, contents)
            t_create += time.perf_counter() - start
            updates = {m["id"]: _edit(i) for i, m in enumerate(created)}
            start = time.perf_counter()
            await store.update_messages(task, updates)
            t_update += time.perf_counter() - start
    return batches * BATCH / t_create, batches * BATCH / t_update


def over_http(url: str, batches: int) -> tuple[float, float]:
    """Messages/s of ``POST`` and ``PUT /messages/batch`` from one client, server in its own process."""
    headers = {"content-type": "application/json"}
    with server(url) as base, httpx.Client(base_url=base, timeout=120) as http:
        task = _task(http)
        warm = orjson.dumps({"task_id": task, "contents": _contents(BATCH, "warm-up")})
        http.post("/messages/batch", content=warm, headers=headers).raise_for_status()
        t_create = t_update = 0.0
        for b in range(batches):
            body = orjson.dumps({"task_id": task, "contents": _contents(BATCH, str(b))})
            start = time.perf_counter()
            resp = http.post("/messages/batch", content=body, headers=headers)
            t_create += time.perf_counter() - start
            resp.raise_for_status()
            ids = [m["id"] for m in resp.json()]
            body = orjson.dumps({"task_id": task, "updates": {mid: _edit(i) for i, mid in enumerate(ids)}})
            start = time.perf_counter()
            resp = http.put("/messages/batch", content=body, headers=headers)
            t_update += time.perf_counter() - start
            resp.raise_for_status()
            assert len(resp.json()) == BATCH
    return batches * BATCH / t_create, batches * BATCH / t_update


def report(
    db: str, floor: tuple[float, float], store: tuple[float, float], http: tuple[float, float]
) -> None:
    for i, op in enumerate(("batch create", "batch update")):
        print(
            f"| {db} | {op} | {floor[i]:,.0f} | {store[i]:,.0f} | {http[i]:,.0f} "
            f"| {floor[i] / store[i]:.2f}× | {floor[i] / http[i]:.2f}× |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batches", type=int, default=30)
    ap.add_argument("--skip-postgres", action="store_true")
    args = ap.parse_args()
    n = args.batches
    print(f"## Workload 5 — store: {n} batches of {BATCH:,} messages (create, then update of the same)\n")
    print(f"{machine()}\n")
    print(
        "| database | operation | floor: raw executemany msg/s | turnwire store in-process msg/s "
        "| turnwire over HTTP msg/s | store ÷ floor (time) | HTTP ÷ floor (time) |"
    )
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        floor = raw_sqlite(os.path.join(tmp, "raw.db"), n)
        store = asyncio.run(in_process(f"sqlite:///{tmp}/store.db", n))
        http = over_http(f"sqlite:///{tmp}/http.db", n)
        report("SQLite", floor, store, http)
    if not args.skip_postgres:
        with postgres_server() as pg:
            floor = asyncio.run(raw_postgres(pg, n))
            store = asyncio.run(in_process(pg, n))
            http = over_http(pg, n)
            report("PostgreSQL", floor, store, http)


if __name__ == "__main__":
    main()
