"""``SqlStore``: the one SQL implementation of ``Store`` (SQLAlchemy Core; SQLite or PostgreSQL)."""

from __future__ import annotations

import sqlite3
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import orjson
import sqlalchemy as sa
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from turnwire.store.base import Idempotency
from turnwire.store.branches import BranchQueries
from turnwire.store.clock import now_us
from turnwire.store.conversation_list import ConversationQueries
from turnwire.store.decisions import DecisionQueries
from turnwire.store.engine import Database
from turnwire.store.errors import ConflictError, IdempotencyMismatchError
from turnwire.store.flushes import FlushQueries
from turnwire.store.messages import MessageQueries
from turnwire.store.schema import idempotency_keys, migrate
from turnwire.store.tasks import TaskQueries

R = TypeVar("R")
K = idempotency_keys.c


class SqlStore(
    TaskQueries, MessageQueries, FlushQueries, DecisionQueries, BranchQueries, ConversationQueries
):
    """Tasks and their messages in SQLite (``sqlite:///file.db``, the default) or PostgreSQL
    (``postgresql://…``). Call ``open()`` before use and ``close()`` at the end."""

    def __init__(self, url: str = "sqlite:///turnwire.db", *, pool_size: int = 10) -> None:
        self.db = Database(url, pool_size=pool_size)
        self.writer_id: str | None = None
        """Set while a ``WriterLease`` runs: messages created with ``owned=True`` carry it, so crash
        repair knows whose they are."""

    @property
    def dialect(self) -> str:
        return self.db.dialect

    async def open(self) -> None:
        await self.db.start()
        async with self.db.write() as conn:
            await migrate(conn, now_us())

    async def close(self) -> None:
        await self.db.dispose()

    async def __aenter__(self) -> SqlStore:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _idempotent(
        self, scope: str, idem: Idempotency | None, work: Callable[[AsyncConnection], Awaitable[R]]
    ) -> R:
        """Run ``work`` in one write transaction; with a key, a repeat returns the first result."""
        if idem is None:
            async with self.db.write() as conn:
                return await work(conn)
        try:
            async with self.db.write() as conn:
                # Claim the key first: a concurrent twin blocks here (PostgreSQL) or fails the claim.
                await conn.execute(
                    idempotency_keys.insert().values(
                        scope=scope, key=idem.key, fingerprint=idem.fingerprint, created_at=now_us()
                    )
                )
                result = await work(conn)
                await conn.execute(
                    sa.update(idempotency_keys)
                    .where(K.scope == scope, K.key == idem.key)
                    .values(response=orjson.dumps(result).decode())
                )
                return result
        except IntegrityError as exc:
            return await self._repeat(scope, idem, exc)

    async def _idempotent_sqlite(self, scope: str, idem: Idempotency, fn: Callable[..., R], *args: Any) -> R:
        """``_idempotent`` of a SQLite writer-thread function ``fn(conn, *args)``: key, work and
        response in one transaction of the writer thread."""
        try:
            return await self.db.sqlite_write(_keyed, scope, idem, fn, *args)
        except sqlite3.IntegrityError as exc:
            return await self._repeat(scope, idem, exc)

    async def _repeat(self, scope: str, idem: Idempotency, exc: Exception) -> Any:
        """The first answer to a request whose key was already claimed (re-raising if it was not)."""
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    sa.select(K.fingerprint, K.response).where(K.scope == scope, K.key == idem.key)
                )
            ).first()
        if row is None:
            raise exc
        if row[0] != idem.fingerprint:
            raise IdempotencyMismatchError(idem.key) from None
        if row[1] is None:
            raise ConflictError("the first request with this Idempotency-Key is still running") from None
        return orjson.loads(row[1])


def _keyed(conn: sqlite3.Connection, scope: str, idem: Idempotency, fn: Callable[..., R], *args: Any) -> R:
    """On the SQLite writer thread: claim the key, do the work, keep its answer for repeats."""
    conn.execute(
        "INSERT INTO idempotency_keys (scope, key, fingerprint, created_at) VALUES (?, ?, ?, ?)",
        (scope, idem.key, idem.fingerprint, now_us()),
    )
    result = fn(conn, *args)
    conn.execute(
        "UPDATE idempotency_keys SET response = ? WHERE scope = ? AND key = ?",
        (orjson.dumps(result).decode(), scope, idem.key),
    )
    return result
