"""Store benchmark: HTTP batch create throughput and paging a 100k-message task.

Runs the Agentex routes in a uvicorn subprocess (so client and server do not share a GIL) on
SQLite and on a throwaway PostgreSQL, and compares batch creates of 1,000 messages with a raw
``executemany`` of the same rows (the floor no HTTP server can beat).

    .venv/bin/python bench/bench_store.py [--batches 50] [--list 100000] [--skip-postgres]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import platform
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import orjson

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from services import free_port, postgres_server  # noqa: E402

BATCH = 1000


def _contents(n: int, tag: str) -> list[dict]:
    return [
        {"type": "text", "author": "agent", "content": f"{tag} message {i} " + "x" * 80} for i in range(n)
    ]


def serve(db_url: str, port: int) -> None:
    """Subprocess entry: serve the Agentex routes on ``port`` from a store at ``db_url``."""
    import gc

    import uvicorn

    from turnwire.server import Settings, create_app

    app = create_app({"bench": None}, settings=Settings(db_url=db_url))  # type: ignore[dict-item]
    gc.collect()  # as `turnwire serve` does once its app is built (server/run.py build_app)
    gc.freeze()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


@contextlib.contextmanager
def server(db_url: str) -> Iterator[str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, __file__, "--serve", db_url, str(port)])
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            with contextlib.suppress(httpx.TransportError):
                httpx.get(base + "/agents", timeout=1)
                break
            time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _task(http: httpx.Client) -> str:
    body = {"method": "task/create", "params": {"name": uuid.uuid4().hex}}
    return http.post("/agents/name/bench/rpc", json=body).json()["result"]["id"]


def bench_http_batches(base: str, batches: int, clients: int = 1) -> float:
    """Messages per second of ``batches`` 1,000-message batch creates from ``clients`` at once."""
    with httpx.Client(base_url=base, timeout=120) as http:
        task = _task(http)
        bodies = [
            orjson.dumps({"task_id": task, "contents": _contents(BATCH, str(b))}) for b in range(batches)
        ]
        headers = {"content-type": "application/json"}
        http.post("/messages/batch", content=bodies[0], headers=headers).raise_for_status()  # warm-up

    def send(share: list[bytes]) -> None:
        with httpx.Client(base_url=base, timeout=120) as own:
            for body in share:
                own.post("/messages/batch", content=body, headers=headers).raise_for_status()

    work = bodies[1:]
    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(send, [work[i::clients] for i in range(clients)]))
    return len(work) * BATCH / (time.perf_counter() - start)


def _rows(n: int) -> list[tuple]:
    now = time.time_ns() // 1000
    contents = _contents(n, "raw")
    return [
        (uuid.uuid4().hex[:24], "raw", i, orjson.dumps(c).decode(), None, now + i, now + i)
        for i, c in enumerate(contents)
    ]


def bench_raw_sqlite(path: str, batches: int) -> float:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(
        "CREATE TABLE IF NOT EXISTS raw (id TEXT PRIMARY KEY, task_id TEXT, seq INTEGER, content TEXT, "
        "streaming_status TEXT, created_at INTEGER, updated_at INTEGER, UNIQUE(task_id, seq))"
    )
    elapsed = 0.0
    for b in range(batches):
        rows = [(r[0], r[1], b * BATCH + r[2], *r[3:]) for r in _rows(BATCH)]
        start = time.perf_counter()
        with conn:
            conn.executemany("INSERT INTO raw VALUES (?,?,?,?,?,?,?)", rows)
        elapsed += time.perf_counter() - start
    conn.close()
    return batches * BATCH / elapsed


async def _raw_postgres(url: str, batches: int) -> float:
    import asyncpg

    conn = await asyncpg.connect(url.replace("postgresql+asyncpg://", "postgresql://"))
    await conn.execute(
        "CREATE TABLE IF NOT EXISTS raw (id TEXT PRIMARY KEY, task_id TEXT, seq BIGINT, content TEXT, "
        "streaming_status TEXT, created_at BIGINT, updated_at BIGINT, UNIQUE(task_id, seq))"
    )
    elapsed = 0.0
    for b in range(batches):
        rows = [(r[0], r[1], b * BATCH + r[2], *r[3:]) for r in _rows(BATCH)]
        start = time.perf_counter()
        async with conn.transaction():
            await conn.executemany("INSERT INTO raw VALUES ($1,$2,$3,$4,$5,$6,$7)", rows)
        elapsed += time.perf_counter() - start
    await conn.close()
    return batches * BATCH / elapsed


def bench_listing(base: str, total: int, page: int = 100) -> dict[str, float]:
    with httpx.Client(base_url=base, timeout=300) as http:
        task = _task(http)
        for b in range(0, total, BATCH):
            body = orjson.dumps({"task_id": task, "contents": _contents(min(BATCH, total - b), str(b))})
            http.post(
                "/messages/batch", content=body, headers={"content-type": "application/json"}
            ).raise_for_status()
        start, seen, cursor, requests = time.perf_counter(), 0, None, 0
        while True:
            params = {"task_id": task, "limit": page} | ({"cursor": cursor} if cursor else {})
            data = http.get("/messages/paginated", params=params).json()
            seen, requests = seen + len(data["data"]), requests + 1
            if not data["has_more"]:
                break
            cursor = data["next_cursor"]
        elapsed = time.perf_counter() - start
        assert seen == total, (seen, total)
        deep = time.perf_counter()
        http.get(
            "/messages", params={"task_id": task, "limit": page, "page_number": total // page}
        ).raise_for_status()
        return {
            "cursor_walk_s": elapsed,
            "pages_per_s": requests / elapsed,
            "msgs_per_s": total / elapsed,
            "last_offset_page_ms": (time.perf_counter() - deep) * 1000,
        }


def run(backend: str, db_url: str, raw_floor: float, args: argparse.Namespace) -> None:
    with server(db_url) as base:
        rate = bench_http_batches(base, args.batches)
        rate4 = bench_http_batches(base, args.batches, clients=4)
        listing = bench_listing(base, args.list)
    print(
        f"{backend:9} HTTP batch create: {rate:9,.0f} msg/s (1 client), {rate4:9,.0f} msg/s (4 clients); "
        f"raw executemany floor: {raw_floor:10,.0f} msg/s"
    )
    print(
        f"{backend:9} cursor walk of {args.list:,} messages (100/page): {listing['cursor_walk_s']:.2f} s "
        f"({listing['pages_per_s']:.0f} pages/s); "
        f"offset page at the end: {listing['last_offset_page_ms']:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batches", type=int, default=50)
    parser.add_argument("--list", type=int, default=100_000)
    parser.add_argument("--skip-postgres", action="store_true")
    parser.add_argument("--serve", nargs=2, metavar=("DB_URL", "PORT"))
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]))
        return
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, "
        f"Python {platform.python_version()}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        floor = bench_raw_sqlite(os.path.join(tmp, "raw.db"), args.batches)
        run("sqlite", f"sqlite:///{tmp}/bench.db", floor, args)
    if not args.skip_postgres:
        with postgres_server() as pg:
            floor = asyncio.run(_raw_postgres(pg, args.batches))
            run("postgres", pg, floor, args)


if __name__ == "__main__":
    main()
