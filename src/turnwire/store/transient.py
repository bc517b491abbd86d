"""Which store failures are worth retrying: the database was briefly away, busy or in a conflict
it resolves by rolling back — not a write it refuses (a constraint, a deleted task, bad data).

A failed write of the store is one rolled-back transaction, so retrying a transient failure
writes it once. What this cannot tell is a connection lost while the database committed: a retry
then finds its rows already there and fails as not transient.
"""

from __future__ import annotations

import errno
import sqlite3
from typing import Final

import asyncpg
import sqlalchemy.exc

_NETWORK_ERRNOS: Final = frozenset(
    {
        errno.ECONNREFUSED,
        errno.ECONNRESET,
        errno.ECONNABORTED,
        errno.EPIPE,
        errno.ETIMEDOUT,
        errno.EHOSTUNREACH,
        errno.ENETUNREACH,
        errno.ENETDOWN,
    }
)
_PG_TRANSIENT: Final = (
    asyncpg.exceptions.PostgresConnectionError,  # connection lost or refused
    asyncpg.exceptions.OperatorInterventionError,  # shutting down, starting up, cannot connect now
    asyncpg.exceptions.InsufficientResourcesError,  # too many connections, disk full for a moment
    asyncpg.exceptions.TransactionRollbackError,  # serialization failure, deadlock
    asyncpg.exceptions.InterfaceError,  # the connection was closed under the query
)
_SQLITE_BUSY: Final = ("database is locked", "database table is locked", "busy")


def is_transient(exc: BaseException) -> bool:
    """Whether ``exc`` (raised by a store write) may succeed if the same write is tried again."""
    seen = 0
    current: BaseException | None = exc
    while current is not None and seen < 4:  # drivers wrap: SQLAlchemy → asyncpg / sqlite3
        if _transient_itself(current):
            return True
        current = current.__cause__ or getattr(current, "orig", None)
        seen += 1
    return False


def _transient_itself(exc: BaseException) -> bool:
    if isinstance(exc, ConnectionError | TimeoutError):
        return True
    if isinstance(exc, sqlalchemy.exc.DBAPIError) and exc.connection_invalidated:
        return True
    if isinstance(exc, _PG_TRANSIENT):
        return True
    if isinstance(exc, sqlite3.OperationalError):
        text = str(exc).lower()
        return any(busy in text for busy in _SQLITE_BUSY)
    return isinstance(exc, OSError) and exc.errno in _NETWORK_ERRNOS
