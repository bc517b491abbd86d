"""Database URLs, engines and transactions for SQLite (default) and PostgreSQL.

SQLite: WAL, one writer at a time (an in-process lock plus ``BEGIN IMMEDIATE`` across processes),
readers never blocked. PostgreSQL: asyncpg; writers on one task serialise on its row lock.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

import sqlalchemy.util
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

# Runs a coroutine from SQLAlchemy's sync layer (its greenlet); named ``await_`` since 2.1.
_await = getattr(sqlalchemy.util, "await_", None) or sqlalchemy.util.await_only


def async_url(url: str) -> str:
    """``sqlite:///x.db`` / a bare path / ``postgresql://…`` -> the async driver URL."""
    if "://" not in url:
        return f"sqlite+aiosqlite:///{url}"
    scheme, rest = url.split("://", 1)
    if scheme in ("sqlite", "sqlite+aiosqlite"):
        return f"sqlite+aiosqlite://{rest}"
    if scheme in ("postgresql", "postgres", "postgresql+asyncpg"):
        return f"postgresql+asyncpg://{rest}"
    raise ValueError(f"unsupported database URL scheme {scheme!r}; use sqlite:/// or postgresql://")


def _sqlite_engine(url: str, *, begin: str | None, **kw: Any) -> AsyncEngine:
    """``begin``: the statement that opens a transaction; ``None`` runs each statement in its own
    (autocommit) transaction, which is all a one-statement read needs."""
    engine = create_async_engine(url, **kw)

    @event.listens_for(engine.sync_engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        # Let SQLAlchemy, not the driver, decide where transactions begin.
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON", "busy_timeout=30000"):
            cur.execute(f"PRAGMA {pragma}")
        cur.close()

    if begin is not None:

        @event.listens_for(engine.sync_engine, "begin")
        def _begin(conn: Any) -> None:
            # Straight on the driver: one round trip to its thread where a cursor takes three.
            _await(conn.connection.driver_connection.execute_fetchall(begin))

    return engine


async def sqlite_rows(conn: AsyncConnection, sql: str, params: Sequence[Any]) -> list[Any]:
    """The rows of one statement run on the SQLite driver's own connection, inside ``conn``'s
    transaction if it has one (a write's, begun by its ``BEGIN`` listener).

    One round trip to the driver's thread (SQLAlchemy's cursor takes four: open, execute, fetch,
    close) and no per-parameter or per-row processing. SQLite only: on PostgreSQL the asyncpg
    transaction would not be open yet.
    """
    raw = (await conn.get_raw_connection()).driver_connection
    return list(await raw.execute_fetchall(sql, params))


async def sqlite_many(conn: AsyncConnection, sql: str, rows: Sequence[Sequence[Any]]) -> None:
    """``executemany`` of ``rows`` on the SQLite driver's own connection, in ``conn``'s transaction:
    one round trip to the driver's thread. SQLite only, like ``sqlite_rows``."""
    raw = (await conn.get_raw_connection()).driver_connection
    await raw.executemany(sql, rows)


class Database:
    """The engines of one store and its read / write transactions."""

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = async_url(url)
        self.dialect = "postgresql" if self.url.startswith("postgresql") else "sqlite"
        self._write_lock = asyncio.Lock() if self.dialect == "sqlite" else None
        if self.dialect == "sqlite" and ":memory:" in self.url:
            # One in-memory database lives on one connection: readers and the writer share it.
            self.reader = self.writer = _sqlite_engine(self.url, begin="BEGIN IMMEDIATE")
        elif self.dialect == "sqlite":
            # Every read is one SELECT, atomic on its own under WAL: an explicit BEGIN would only
            # add a round trip to the driver's thread (about a third of a read's cost). With no
            # transaction ever open on a reader, there is nothing to roll back when it is returned.
            self.reader = _sqlite_engine(self.url, begin=None, pool_size=pool_size, pool_reset_on_return=None)
            self.writer = _sqlite_engine(self.url, begin="BEGIN IMMEDIATE", pool_size=1, max_overflow=0)
        else:
            self.reader = self.writer = create_async_engine(self.url, pool_size=pool_size, max_overflow=20)

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reading. On SQLite each statement sees its own snapshot, so a read
        that needs several statements to agree must run them in ``write()`` instead."""
        async with self.reader.connect() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One transaction: committed when the block ends, rolled back entirely if it raises."""
        if self._write_lock is None:
            async with self.writer.begin() as conn:
                yield conn
            return
        async with self._write_lock, self.writer.begin() as conn:
            yield conn

    async def sqlite_statement(self, sql: str, params: Sequence[Any]) -> list[Any]:
        """One SQLite write statement on its own, atomic without ``BEGIN``/``COMMIT`` (two round
        trips fewer than ``write()``), in turn with every other writer; its rows."""
        assert self._write_lock is not None, "SQLite only"
        async with self._write_lock, self.writer.connect() as conn:
            return await sqlite_rows(conn, sql, params)

    async def dispose(self) -> None:
        await self.reader.dispose()
        if self.writer is not self.reader:
            await self.writer.dispose()
