"""Workload 5's batch update over HTTP: turnwire's route against what any route could reach.

Each server runs in its own uvicorn process (uvloop, httptools, as ``turnwire serve``); one
client (httpx, as compare_store) sends the same 1,000-message ``PUT /messages/batch`` bodies to
each in turn, with compare_store's raw ``sqlite3`` floor in the same rounds:

- ``turnwire``: the app ``turnwire serve`` runs (``bench_store.serve``), on a SQLite file
- ``frozen``: the same app, with ``gc.freeze()`` once its startup is done (the collector's full
  collections then skip the server's own modules and objects; the best hides them, the mean not)
- ``bare``: a bare Starlette route over the same store that decodes the body with orjson and calls
  ``update_messages_json``: no checks, no FastAPI, no tenant lookup (what the checks cost)
- ``statement``: the bare route, but after the store's UPDATE it answers with bytes made beforehand:
  decoding, the contents' JSON and the statement, no answer built (the least any answer costs)
- ``transport``: a bare Starlette route that reads the body and answers with bytes of the same size
  made beforehand: no decoding, no store (uvicorn and the client on these sizes, nothing else)

Reported per batch, mean, median and best, wall time (the client's, as compare_store counts it) and the
server process's CPU (every thread, ``/proc``), each ÷ the floor's same statistic.

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/batch_update_http.py [--batches 40]
"""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson

HERE = Path(__file__).resolve().parent  # bench/experiments: the sibling experiments
BENCH = HERE.parent  # bench/: the workloads and tools this experiment reuses
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

from store_http_ab import cpu_s  # noqa: E402

import compare_store  # noqa: E402
from bench_store import BATCH, _contents, _task  # noqa: E402
from services import free_port  # noqa: E402

HEADERS = {"content-type": "application/json"}


def serve_frozen(db_url: str, port: int) -> None:
    """Subprocess entry: ``bench_store.serve``'s app, ``gc.freeze()`` once its startup completed."""
    import gc

    import uvicorn

    from turnwire.server import Settings, create_app

    app = create_app({"bench": None}, settings=Settings(db_url=db_url))  # type: ignore[dict-item]

    async def frozen(scope: Any, receive: Any, send: Any) -> None:
        async def send_then_freeze(message: Any) -> None:
            if message["type"] == "lifespan.startup.complete":
                gc.collect()
                gc.freeze()
            await send(message)

        await app(scope, receive, send_then_freeze if scope["type"] == "lifespan" else send)

    uvicorn.run(frozen, host="127.0.0.1", port=port, log_level="warning", access_log=False)


def serve_alternative(kind: str, db_url: str, port: int, answer_size: int) -> None:
    """Subprocess entry: the ``bare``, ``statement`` or ``transport`` server."""
    if kind == "frozen":
        serve_frozen(db_url, port)
        return
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    from turnwire.store import SqlStore
    from turnwire.store.messages import _update_sqlite

    store = SqlStore(db_url)
    canned = b"[" + b"x" * (answer_size - 2) + b"]"

    async def update(request: Request) -> Response:
        if kind == "transport":
            await request.body()
            return Response(canned, media_type="application/json")
        body = orjson.loads(await request.body())
        if kind == "statement":
            updates = body["updates"]
            texts = [orjson.dumps(c).decode() for c in updates.values()]
            await store.db.sqlite_write(_update_sqlite, body["task_id"], list(updates), texts)
            return Response(canned, media_type="application/json")
        answer = await store.update_messages_json(body["task_id"], body["updates"])
        return Response(answer, media_type="application/json")

    async def create(request: Request) -> Response:
        body = orjson.loads(await request.body())
        return Response(orjson.dumps(await store.create_messages(body["task_id"], body["contents"])))

    async def task(request: Request) -> Response:
        return Response(orjson.dumps(await store.create_task(name=(await request.json())["name"])))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):  # type: ignore[no-untyped-def]
        await store.open()
        yield
        await store.close()

    routes = [
        Route("/messages/batch", update, methods=["PUT"]),
        Route("/messages/batch", create, methods=["POST"]),
        Route("/tasks", task, methods=["POST"]),
        Route("/agents", lambda r: Response(b"[]"), methods=["GET"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


@contextlib.contextmanager
def server(cmd: list[str], port: int) -> Iterator[tuple[str, int]]:
    proc = subprocess.Popen([sys.executable, *cmd])
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
    ap.add_argument("--batches", type=int, default=40)
    ap.add_argument("--serve", nargs=4, metavar=("KIND", "DB_URL", "PORT", "ANSWER_SIZE"))
    args = ap.parse_args()
    if args.serve:
        kind, url, port, size = args.serve
        serve_alternative(kind, url, int(port), int(size))
        return
    import turnwire

    print(f"turnwire from {Path(turnwire.__file__).parent}")
    names = ("turnwire", "frozen", "bare", "statement", "transport")
    each: dict[str, list[tuple[float, float]]] = {name: [] for name in ("floor", *names)}
    with tempfile.TemporaryDirectory() as tmp, contextlib.ExitStack() as stack:
        clients, tasks, pids = {}, {}, {}
        for name in names:
            port = free_port()
            url = f"sqlite:///{tmp}/{name}.db"
            if name == "turnwire":
                cmd = [str(BENCH / "bench_store.py"), "--serve", url, str(port)]
            else:
                cmd = [__file__, "--serve", name, url, str(port), "410891"]
            base, pids[name] = stack.enter_context(server(cmd, port))
            http = stack.enter_context(httpx.Client(base_url=base, timeout=120))
            clients[name] = http
            if name in ("turnwire", "frozen"):
                tasks[name] = _task(http)
            else:
                tasks[name] = http.post("/tasks", json={"name": "bench"}).json()["id"]
        raw = sqlite3.connect(f"{tmp}/raw.db")
        raw.execute("PRAGMA journal_mode=WAL")
        raw.execute("PRAGMA synchronous=NORMAL")
        raw.execute(f"CREATE TABLE raw ({compare_store._COLUMNS})")
        sizes = set()
        for b in range(-3, args.batches):  # three warm-up rounds
            rows = compare_store._rows(b + 3)
            with raw:
                raw.executemany("INSERT INTO raw VALUES (?,?,?,?,?,?,?)", rows)
            updates = compare_store._updates(rows)
            start, c0 = time.perf_counter(), time.process_time()
            with raw:
                raw.executemany("UPDATE raw SET content = ?, updated_at = ? WHERE id = ?", updates)
            if b >= 0:
                each["floor"].append((time.perf_counter() - start, time.process_time() - c0))
            for name, http in clients.items():
                body = orjson.dumps({"task_id": tasks[name], "contents": _contents(BATCH, str(b))})
                resp = http.post("/messages/batch", content=body, headers=HEADERS)
                resp.raise_for_status()
                ids = [m["id"] for m in resp.json()]
                edits = {mid: compare_store._edit(i) for i, mid in enumerate(ids)}
                body = orjson.dumps({"task_id": tasks[name], "updates": edits})
                start, c0 = time.perf_counter(), cpu_s(pids[name])
                resp = http.put("/messages/batch", content=body, headers=HEADERS)
                wall, cpu = time.perf_counter() - start, cpu_s(pids[name]) - c0
                resp.raise_for_status()
                if b >= 0:
                    each[name].append((wall, cpu))
                if name in ("turnwire", "frozen", "bare"):
                    sizes.add(len(resp.content))
        raw.close()
    print(f"\nanswer sizes {sorted(sizes)} bytes (transport answers 410,891)\n")
    print("| server | statistic | wall ms | ÷ floor | server CPU ms | ÷ floor |")
    print("|---|---|---|---|---|---|")
    for stat, pick in (("mean", statistics.mean), ("median", statistics.median), ("best", min)):
        floor = [pick(x[j] for x in each["floor"]) for j in (0, 1)]
        for name in ("floor", *names):
            wall, cpu = (pick(x[j] for x in each[name]) for j in (0, 1))
            print(
                f"| {name} | {stat} | {wall * 1e3:.2f} | {wall / floor[0]:.2f}× "
                f"| {cpu * 1e3:.2f} | {cpu / floor[1]:.2f}× |"
            )


if __name__ == "__main__":
    main()
