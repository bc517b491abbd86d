"""The no-store request path three ways, in process (``serve_inproc.py``'s rounds, CPU per request):

- ``floor``: ``floor_app`` (a bare Starlette stream of the same bytes)
- ``nostore``: ``stream_app`` (``create_router`` included in a bare FastAPI app, as ``load.py``'s
  ``turnwire-nostore`` serves it; FastAPI's included-router matching is part of the cost)
- ``direct``: the same router's routes put on a bare FastAPI app itself (as ``create_app`` does)
- ``served``: ``create_app`` (request ids, error handlers, browser policy) with no store and no
  lifespan: ``turnwire serve`` minus the store and the recorder

Round robin, best of ``--rounds``; ``--profile APP`` profiles that app's rounds on CPU time.

    PYTHONPATH=src bench/.venv/bin/python bench/experiments/nostore_inproc.py \
        [--apps floor,nostore,direct,served]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))  # serve_inproc
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: the apps, count_agent

import serve_inproc


def _apps(names: list[str]) -> dict[str, Any]:
    from fastapi import FastAPI

    import floor_app
    import stream_app
    from count_agent import fast_count
    from turnwire.agents import builtin_agents
    from turnwire.server import create_router
    from turnwire.server.app import app_context, create_app
    from turnwire.server.settings import Settings

    agents = {**builtin_agents(), "fast": fast_count}
    settings = Settings.from_env(keepalive_seconds=0.0)
    direct = FastAPI()
    direct.router.routes.extend(create_router(agents, settings=settings).routes)
    served = create_app(context=app_context(agents, settings=settings))  # no lifespan: no store
    found = {"floor": floor_app.app, "nostore": stream_app.app, "direct": direct, "served": served}
    return {name: found[name] for name in names}


async def main_async(args: argparse.Namespace) -> None:
    import turnwire

    print(f"turnwire from {turnwire.__file__}", file=sys.stderr)
    apps = _apps(args.apps.split(","))
    lifespans = [serve_inproc._Lifespan(app) for name, app in apps.items() if name != "served"]
    for lifespan in lifespans:
        await lifespan.__aenter__()
    try:
        for name, app in apps.items():
            await serve_inproc._round(app, 3, 5, False, name == "floor")  # warm up
        if args.profile:
            prof = cProfile.Profile(time.process_time)
            prof.enable()
            for _ in range(args.rounds):
                await serve_inproc._round(apps[args.profile], args.n, args.concurrent, False, False)
            prof.disable()
            pstats.Stats(prof).sort_stats(args.sort).print_stats(args.top)
            return
        best = dict.fromkeys(apps, float("inf"))
        for _ in range(args.rounds):
            for name, app in apps.items():
                spent = await serve_inproc._round(app, args.n, args.concurrent, False, name == "floor")
                best[name] = min(best[name], spent)
    finally:
        for lifespan in lifespans:
            await lifespan.__aexit__(None, None, None)
    floor = best.get("floor")
    for name, spent in best.items():
        ratio = f"  {spent / floor:5.2f}× floor" if floor else ""
        print(f"{name:10} {spent * 1e6:8.0f} µs/request{ratio}")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--apps", default="floor,nostore,direct,served")
    p.add_argument("--n", type=int, default=10, help="count to n")
    p.add_argument("--concurrent", type=int, default=100)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--profile", default="", help="profile this app's rounds (cProfile, CPU time)")
    p.add_argument("--sort", default="tottime")
    p.add_argument("--top", type=int, default=45)
    args = p.parse_args()
    serve_inproc.run_on_fresh_sqlite(main_async, args)


if __name__ == "__main__":
    main()
