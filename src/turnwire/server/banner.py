"""What ``turnwire serve`` prints once everything checked out: where to go, what runs, where data lives."""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import FastAPI

from turnwire.server.preflight import display_url
from turnwire.server.settings import Settings


def store_location(settings: Settings) -> str:
    """The store as a person would look for it: a file path for SQLite, else the URL without password."""
    from turnwire.server.settings import default_db_url

    url = settings.db_url or default_db_url()
    if "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    if scheme.startswith("sqlite"):
        return rest.removeprefix("/") or ":memory:"
    return display_url(url)


def workers_without_redis(workers: int) -> str:
    """Why several workers want Redis: each keeps its live streams to itself."""
    return (
        f"{workers} workers without --redis: resume, stop and live task streams work only on "
        "the worker that runs the turn (give --redis redis://host:6379/0)"
    )


DOORS = ("/invoke", "/chat", "/agui", "/v1/chat/completions")
"""The POST routes a client starts a turn on, listed in the banner when the app serves them."""


def serves(app: FastAPI, path: str, method: str = "GET") -> bool:
    """Whether ``method path`` reaches a route of ``app`` (asked the way the router matches requests)."""
    from starlette.routing import Match

    scope = {
        "type": "http",
        "path": path,
        "method": method,
        "root_path": "",
        "headers": [],
        "query_string": b"",
    }
    return any(route.matches(scope)[0] is Match.FULL for route in app.router.routes)


def banner(
    *,
    host: str,
    port: int,
    agents: Iterable[str],
    default_agent: str,
    settings: Settings,
    app: FastAPI | None = None,
    workers: int = 1,
    reload: bool = False,
    version: str = "",
) -> str:
    """The startup banner, one fact per line."""
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else host)
    base = f"http://{shown}:{port}"
    lines = [
        f"turnwire {version} serving {base}"
        + (f" (listening on all interfaces, {host})" if shown != host else "")
    ]
    if app is not None and serves(app, "/"):
        lines.append(f"  page     {base}/")
    doors = [d for d in DOORS if app is None or serves(app, d, "POST")] or list(DOORS[:1])
    lines.append("  API      " + "  ".join(f"{base}{d}" for d in doors) + "  (per agent: /agents/<name>/…)")
    lines.append(f"  docs     {base}/docs  (OpenAPI: {base}/openapi.json)")
    default_store = "  (this folder's default; --db picks another)" if not settings.db_url else ""
    lines.append(f"  store    {store_location(settings)}{default_store}")
    if settings.redis_url:
        lines.append(f"  redis    {display_url(settings.redis_url)}")
    elif workers > 1 and not reload:
        lines.append(f"  redis    none: WARNING, {workers_without_redis(workers)}")
    else:
        lines.append("  redis    none (live task updates stay in this process)")
    names = sorted(agents)
    listed = ", ".join(f"{n} (default)" if n == default_agent else n for n in names)
    lines.append(f"  agents   {listed}")
    if settings.api_keys:
        tenants = ", ".join(sorted(set(settings.api_keys.values())))
        lines.append(f"  auth     API keys (tenants: {tenants}); /health needs none")
    else:
        lines.append(f"  auth     none: anyone who can reach {shown}:{port} can use every route")
    mode = "reload on code changes" if reload else f"{workers} worker{'s' if workers != 1 else ''}"
    lines.append(f"  process  {mode}; Ctrl-C stops")
    return "\n".join(lines)
