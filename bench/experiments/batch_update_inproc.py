"""Workload 5's batch update in process: the store call and the whole route, against the floor.

One process, round robin, best of ``--rounds`` CPU time (``process_time``: every thread, the
SQLite writer thread's included), each round on a fresh 1,000-message batch:

- ``floor``: compare_store's raw ``sqlite3`` ``executemany`` UPDATE of 1,000 rows (no answer)
- ``store``: ``SqlStore.update_messages`` (the answer as a list of dicts, as Python callers get it)
- ``store json``: ``SqlStore.update_messages_json`` (the answer as the route sends it), when the
  tree has it; else ``update_messages`` followed by ``orjson.dumps`` of its answer
- ``route``: ``PUT /messages/batch`` of the app ``turnwire serve`` runs, driven by direct ASGI
  calls (no sockets, no uvicorn): body decoding and checks, the store, the answer's bytes
- ``route, no checks`` (``--bare``): the same store call from a bare Starlette endpoint that
  decodes the body and skips every check: what the checks and FastAPI cost

The mean of the rounds is shown too: the best hides the cyclic collector's full collections,
which walk the whole process (``--freeze``: ``gc.freeze()`` after the warm-up, as a server could
after its startup).

Run it once per tree and compare the ratios (each run has its own floor)::

    PYTHONPATH=/work/main/src bench/.venv/bin/python bench/experiments/batch_update_inproc.py
    PYTHONPATH=src bench/.venv/bin/python bench/experiments/batch_update_inproc.py
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent  # bench/experiments: the sibling experiments
BENCH = HERE.parent  # bench/: the workloads and tools this experiment reuses
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent / "tests"))

from serve_inproc import _Lifespan, asgi_call, http_scope  # noqa: E402
from store_turn import RawFloor  # noqa: E402

import compare_store  # noqa: E402

BATCH = compare_store.BATCH
PROFILE: list[cProfile.Profile] = []  # --profile: the measured part of each run only


def _start() -> float:
    if PROFILE:
        PROFILE[0].enable()
    return time.process_time()


def _stop(start: float) -> float:
    spent = time.process_time() - start
    if PROFILE:
        PROFILE[0].disable()
    return spent


async def asgi(app: Any, method: str, path: str, body: bytes) -> tuple[int, bytes]:
    """One request by direct ASGI calls: (status, body)."""
    return await asgi_call(app, http_scope(path, body, method=method, sse=False), body)


def bare_app(store: Any) -> Any:
    """``PUT /messages/batch`` with no checks at all: decode, store, answer."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    json_variant = getattr(store, "update_messages_json", None)

    async def put(request: Request) -> Response:
        body = orjson.loads(await request.body())
        if json_variant is not None:
            answer = await json_variant(body["task_id"], body["updates"])
        else:
            answer = orjson.dumps(await store.update_messages(body["task_id"], body["updates"]))
        return Response(answer, media_type="application/json")

    return Starlette(routes=[Route("/messages/batch", put, methods=["PUT"])])


async def main_async(args: argparse.Namespace) -> None:
    import turnwire
    from turnwire.server import Settings, create_app
    from turnwire.store import SqlStore

    print(f"turnwire from {Path(turnwire.__file__).parent}; loop {args.loop}")
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"bench": None}, settings=Settings(db_url=f"sqlite:///{tmp}/app.db"))  # type: ignore[dict-item]
        store = SqlStore(f"sqlite:///{tmp}/store.db")
        bare_store = SqlStore(f"sqlite:///{tmp}/bare.db")
        await store.open()
        await bare_store.open()
        bare = bare_app(bare_store)
        floor = RawFloor(f"{tmp}/raw.db")
        has_json = hasattr(store, "update_messages_json")
        async with _Lifespan(app):
            rpc = orjson.dumps({"method": "task/create", "params": {"name": "bench"}})
            _, answer = await asgi(app, "POST", "/agents/name/bench/rpc", rpc)
            app_task = orjson.loads(answer)["result"]["id"]
            task = (await store.create_task(name="bench"))["id"]
            bare_task = (await bare_store.create_task(name="bench"))["id"]

            async def new_batch(r: int, on: str) -> dict[str, dict]:
                contents = compare_store._contents(BATCH, f"{on} {r}")
                if on == "route":
                    body = orjson.dumps({"task_id": app_task, "contents": contents})
                    status, answer = await asgi(app, "POST", "/messages/batch", body)
                    assert status == 200, answer[:300]
                    ids = [m["id"] for m in orjson.loads(answer)]
                else:
                    s, t = (bare_store, bare_task) if on == "bare" else (store, task)
                    ids = [m["id"] for m in await s.create_messages(t, contents)]
                return {mid: compare_store._edit(i) for i, mid in enumerate(ids)}

            async def run_store(r: int) -> float:
                updates = await new_batch(r, "store")
                start = _start()
                await store.update_messages(task, updates)
                return _stop(start)

            async def run_store_json(r: int) -> float:
                updates = await new_batch(r, "store")
                start = _start()
                if has_json:
                    await store.update_messages_json(task, updates)
                else:
                    orjson.dumps(await store.update_messages(task, updates))
                return _stop(start)

            async def run_route(r: int) -> float:
                updates = await new_batch(r, "route")
                body = orjson.dumps({"task_id": app_task, "updates": updates})
                start = _start()
                status, answer = await asgi(app, "PUT", "/messages/batch", body)
                spent = _stop(start)
                assert status == 200, answer[:300]
                return spent

            async def run_bare(r: int) -> float:
                updates = await new_batch(r, "bare")
                body = orjson.dumps({"task_id": bare_task, "updates": updates})
                start = _start()
                status, answer = await asgi(bare, "PUT", "/messages/batch", body)
                spent = _stop(start)
                assert status == 200, answer[:300]
                return spent

            async def run_floor(r: int) -> float:
                rows = floor.create()
                start = _start()
                floor.update(rows)
                return _stop(start)

            runs = {"floor": run_floor, "store": run_store, "store json": run_store_json, "route": run_route}
            if args.bare:
                runs["route, no checks"] = run_bare
            if args.profile:
                work = runs[args.profile]
                for r in range(3):
                    await work(-1 - r)
                PROFILE.append(cProfile.Profile())
                for r in range(args.rounds):
                    await work(r)
                pstats.Stats(PROFILE[0]).sort_stats(args.sort).print_stats(40)
                return
            for r in range(3):  # warm-up
                for work in runs.values():
                    await work(-1 - r)
            if args.freeze:
                gc.freeze()
            best = {name: float("inf") for name in runs}
            mean = dict.fromkeys(runs, 0.0)
            for r in range(args.rounds):
                for name, work in runs.items():
                    spent = await work(r)
                    best[name] = min(best[name], spent)
                    mean[name] += spent / args.rounds
        await store.close()
        await bare_store.close()
    f = best["floor"]
    print(f"\n1,000-message batch update, best of {args.rounds} (CPU ms; store json: {has_json})\n")
    print("| what | CPU ms, best | ÷ floor | CPU ms, mean | ÷ floor's mean |")
    print("|---|---|---|---|---|")
    for name, value in best.items():
        print(
            f"| {name} | {value * 1e3:.2f} | {value / f:.2f}× "
            f"| {mean[name] * 1e3:.2f} | {mean[name] / mean['floor']:.2f}× |"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--loop", choices=("uvloop", "asyncio"), default="uvloop")
    ap.add_argument("--bare", action="store_true", help="also the no-checks Starlette route")
    ap.add_argument("--freeze", action="store_true", help="gc.freeze() after the warm-up")
    ap.add_argument("--sort", default="tottime", help="cProfile sort key")
    ap.add_argument("--profile", default="", help="cProfile this run (floor, store, store json, route)")
    args = ap.parse_args()
    if args.loop == "uvloop":
        import uvloop

        uvloop.run(main_async(args))
    else:
        asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
