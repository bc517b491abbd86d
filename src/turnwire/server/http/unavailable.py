"""A required service out of reach: ``503`` with ``Retry-After``, not a ``500``.

While the store (PostgreSQL) or Redis cannot be reached — restarting, stopped, the network cut —
a request that needs it fails with a connection error. That is not a bug of the request nor of
the server: the client should come back shortly, and a load balancer should look at readiness
(``GET /health/ready``) rather than liveness (``GET /health``).
"""

from __future__ import annotations

from typing import Any, Final

RETRY_AFTER: Final = "2"
"""Seconds a client is told to wait before retrying (``Retry-After``)."""


def _connection_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    """(store's, Redis's) exception classes that mean "unreachable"; imported once, lazily."""
    store: list[type[BaseException]] = [ConnectionError, TimeoutError]
    redis: list[type[BaseException]] = []
    try:
        import asyncpg.exceptions as pg

        store += [pg.PostgresConnectionError, pg.CannotConnectNowError, pg.AdminShutdownError]
        store += [pg.CrashShutdownError, pg.TooManyConnectionsError, pg.InterfaceError]
    except ImportError:  # PostgreSQL support not installed
        pass
    try:
        import redis.exceptions as r

        redis += [r.ConnectionError, r.TimeoutError]
    except ImportError:
        pass
    return tuple(store), tuple(redis)


_KINDS: tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]] | None = None


def unreachable(exc: BaseException) -> str | None:
    """``"store"`` or ``"redis"`` when ``exc`` (or what caused it) says that service is out of
    reach, else ``None``."""
    global _KINDS
    if _KINDS is None:
        _KINDS = _connection_errors()
    store, redis = _KINDS
    seen: set[int] = set()
    current: Any = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if redis and isinstance(current, redis):
            return "redis"
        if isinstance(current, store):
            return "store"
        if getattr(current, "connection_invalidated", False):  # SQLAlchemy: the connection broke
            return "store"
        current = getattr(current, "orig", None) or current.__cause__ or current.__context__
    return None


def unavailable_message(service: str) -> str:
    name = "Redis" if service == "redis" else "the conversation store"
    return f"{name} is unreachable; retry shortly"
