"""Workload 4 in process: CPU per request of each server's app, driven by direct ASGI calls.

No HTTP and no sockets: each app gets ``--concurrent`` ``POST /invoke`` requests at once (new
sessions, ``count to <n>`` as ``load.py`` sends), under uvloop as ``turnwire serve`` runs, and the
CPU time of the whole process (``process_time``: every thread, the SQLite engine's included) is
divided by the requests. Apps, round robin, best of ``--rounds``:

- ``floor``: ``floor_app`` (a bare Starlette stream of the same bytes)
- ``nostore``: ``stream_app`` (turnwire's routes, no store, nothing recorded)
- ``nullstore``: ``serve_app.nullstore_app`` (the served app over a store that keeps nothing)
- ``sqlite``: ``serve_app.app`` on a fresh SQLite file (what ``turnwire serve`` runs)

``--profile APP`` runs that app's rounds under cProfile instead and prints the top functions.
``--cadence`` uses the demo agent's ``count to <n>`` with its 50 ms pause (wall time grows; CPU per
request is still what is compared). Every app's answer is checked to end with its ``done`` frame.

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/serve_inproc.py [--n 10] [--concurrent 100]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # bench/: the apps it serves, count_agent


def _body(n: int) -> bytes:
    return orjson.dumps({"data": {"inputs": {"messages": [{"role": "user", "content": f"count to {n}"}]}}})


def http_scope(path: str, body: bytes, *, method: str = "POST", query: bytes = b"", sse: bool = True) -> dict:
    """The ASGI scope of one loopback request with a JSON body (asking for SSE if ``sse``)."""
    headers = [(b"host", b"127.0.0.1"), (b"content-type", b"application/json")]
    if sse:
        headers.append((b"accept", b"text/event-stream"))
    headers.append((b"content-length", str(len(body)).encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": query,
        "headers": headers,
        "client": ("127.0.0.1", 1234),
        "server": ("127.0.0.1", 80),
        "state": {},
    }


async def asgi_call(
    app: Any, scope: dict, body: bytes, on_chunk: Callable[[bytes], None] | None = None
) -> tuple[int, bytes]:
    """One request by direct ASGI calls: (status, body). The client leaves once the body ended;
    ``on_chunk`` sees every body chunk as it is sent."""
    sent = False
    done = asyncio.Event()
    status = 0
    chunks: list[bytes] = []

    async def receive() -> dict:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await done.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]
        elif message["type"] == "http.response.body":
            chunk = message.get("body", b"")
            if on_chunk is not None:
                on_chunk(chunk)
            chunks.append(chunk)
            if not message.get("more_body"):
                done.set()

    await app(scope, receive, send)
    done.set()
    return status, b"".join(chunks)


async def _one(app: Any, path: str, body: bytes, query: bytes) -> bytes:
    return (await asgi_call(app, http_scope(path, body, query=query), body))[1]


class _Lifespan:
    """Runs an app's lifespan startup and, on exit, shutdown."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.queue: asyncio.Queue[dict] = asyncio.Queue()
        self.started = asyncio.Event()
        self.stopped = asyncio.Event()

    async def __aenter__(self) -> None:
        async def receive() -> dict:
            return await self.queue.get()

        async def send(message: dict) -> None:
            if message["type"].startswith("lifespan.startup"):
                self.started.set()
            elif message["type"].startswith("lifespan.shutdown"):
                self.stopped.set()

        self.task = asyncio.ensure_future(self.app({"type": "lifespan", "state": {}}, receive, send))
        await self.queue.put({"type": "lifespan.startup"})
        await self.started.wait()

    async def __aexit__(self, *exc: object) -> None:
        await self.queue.put({"type": "lifespan.shutdown"})
        await self.stopped.wait()
        await self.task


def _apps(which: list[str]) -> dict[str, Any]:
    import floor_app
    import serve_app
    import stream_app

    found = {
        "floor": floor_app.app,
        "nostore": stream_app.app,
        "nullstore": serve_app.nullstore_app,
        "sqlite": serve_app.app,
    }
    return {name: found[name] for name in which}


async def _round(app: Any, n: int, concurrent: int, cadence: bool, floor: bool) -> float:
    body = _body(n)
    path = "/agents/fast/invoke" if not cadence and not floor else "/invoke"
    query = b"cadence=0" if floor and not cadence else b""
    t = time.process_time()
    answers = await asyncio.gather(*(_one(app, path, body, query) for _ in range(concurrent)))
    spent = time.process_time() - t
    for a in answers:
        if b'"done"' not in a[-400:]:
            raise RuntimeError(f"an answer did not end with done: {a[-400:]!r}")
    return spent / concurrent


async def main_async(args: argparse.Namespace) -> None:
    import turnwire

    print(f"turnwire from {turnwire.__file__}", file=sys.stderr)
    names = args.apps.split(",")
    apps = _apps(names)
    best = {name: float("inf") for name in names}
    for name, app in apps.items():
        async with _Lifespan(app):
            await _round(app, 3, 5, args.cadence, name == "floor")  # warm up
    contexts = [(_Lifespan(app), name, app) for name, app in apps.items()]
    for ctx, _, _ in contexts:
        await ctx.__aenter__()
    if args.gc == "freeze":
        gc.collect()
        gc.freeze()
    elif args.gc == "off":
        gc.disable()
    try:
        if args.profile:
            app = apps[args.profile]
            prof = cProfile.Profile()
            prof.enable()
            for _ in range(args.rounds):
                await _round(app, args.n, args.concurrent, args.cadence, args.profile == "floor")
            prof.disable()
            pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)
            return
        for _ in range(args.rounds):
            for name, app in apps.items():
                spent = await _round(app, args.n, args.concurrent, args.cadence, name == "floor")
                best[name] = min(best[name], spent)
    finally:
        for ctx, _, _ in contexts:
            await ctx.__aexit__(None, None, None)
    floor = best.get("floor")
    for name in names:
        ratio = f"  {best[name] / floor:5.2f}× floor" if floor else ""
        print(f"{name:10} {best[name] * 1e6:8.0f} µs/request{ratio}")


def run_on_fresh_sqlite(main_async: Callable[[argparse.Namespace], Any], args: argparse.Namespace) -> None:
    """Run ``main_async(args)`` under uvloop, as ``turnwire serve`` runs, with the apps' store on a
    fresh SQLite file (the environment is read when the apps are first imported, inside it)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["TURNWIRE_DB_URL"] = f"sqlite:///{tmp}/inproc.db"
        os.environ.setdefault("TURNWIRE_HOME", tmp)
        import uvloop

        uvloop.run(main_async(args))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--apps", default="floor,nostore,nullstore,sqlite")
    p.add_argument("--n", type=int, default=10, help="count to n")
    p.add_argument("--concurrent", type=int, default=100)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--cadence", action="store_true", help="the demo agent with its 50 ms pause")
    p.add_argument("--gc", choices=("default", "freeze", "off"), default="default", help="GC during rounds")
    p.add_argument("--profile", default="", help="profile this app's rounds (cProfile)")
    p.add_argument("--sort", default="tottime")
    p.add_argument("--top", type=int, default=45)
    args = p.parse_args()
    run_on_fresh_sqlite(main_async, args)


if __name__ == "__main__":
    main()
