"""The conversation store: tasks and their messages, one transaction per write.

``open_store(url)`` gives an opened ``SqlStore``; the server keeps it in ``app.state.store``.
"""

from __future__ import annotations

from turnwire.store.base import Claim, Claimed, Idempotency, NewRow, Page, RowChange, SessionTask, Store
from turnwire.store.errors import ConflictError, IdempotencyMismatchError, NotFoundError, StoreError
from turnwire.store.filters import MessageFilter, parse_filters
from turnwire.store.sql import SqlStore


async def open_store(url: str = "sqlite:///turnwire.db") -> SqlStore:
    """A ready store for ``url`` (SQLite path/URL or PostgreSQL URL), migrations applied."""
    store = SqlStore(url)
    await store.open()
    return store


__all__ = [
    "Claim",
    "Claimed",
    "ConflictError",
    "Idempotency",
    "IdempotencyMismatchError",
    "MessageFilter",
    "NewRow",
    "NotFoundError",
    "Page",
    "RowChange",
    "SessionTask",
    "SqlStore",
    "Store",
    "StoreError",
    "open_store",
    "parse_filters",
]
