"""Database URLs, engines and transactions for SQLite (default) and PostgreSQL.

SQLite: WAL, one writer at a time (``BEGIN IMMEDIATE`` across processes). The hot statements run on
threads of their own (``sqlite_threads``: a writer thread with group commit) or, for reads by key,
at once on the event loop's own connection;
everything else goes through SQLAlchemy, whose writes pause the writer thread meanwhile.
PostgreSQL: the hot statements go straight to an asyncpg pool, one round trip each (a recorder
flush is one statement); the others through SQLAlchemy. Writers on one task serialise on its row
lock.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypeVar

import asyncpg
import sqlalchemy.util
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from turnwire.store.sqlite_threads import SqliteThreads

R = TypeVar("R")

PG_POOL_SIZE = 20
"""asyncpg connections of the hot statements (beside SQLAlchemy's pool of the others)."""

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


class Database:
    """The engines of one store and its read / write transactions."""

    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = async_url(url)
        self.dialect = "postgresql" if self.url.startswith("postgresql") else "sqlite"
        self._write_lock = asyncio.Lock() if self.dialect == "sqlite" else None
        self._scratch: str | None = None
        self.threads: SqliteThreads | None = None
        if self.dialect == "sqlite":
            path, uri = _sqlite_path(self.url)
            if path in ("", ":memory:"):
                # The writer thread and the loop each need a connection to the same database: an
                # in-memory one lives in a file of a private directory, removed on ``dispose``.
                self._scratch = tempfile.mkdtemp(prefix="turnwire-")
                path, uri = os.path.join(self._scratch, "memory.db"), False
                self.url = f"sqlite+aiosqlite:///{path}"
            # The hot path: each transaction one call, on the loop's connection or the writer thread;
            # reads by key on the loop's connection.
            self.threads = SqliteThreads(path, uri=uri, readers=min(pool_size, 2))
            # Every other statement goes through SQLAlchemy. Every read is one SELECT, atomic on its
            # own under WAL: no BEGIN, and nothing to roll back when a connection is returned.
            self.reader = _sqlite_engine(self.url, begin=None, pool_size=pool_size, pool_reset_on_return=None)
            self.writer = _sqlite_engine(self.url, begin="BEGIN IMMEDIATE", pool_size=1, max_overflow=0)
        else:
            self.reader = self.writer = create_async_engine(self.url, pool_size=pool_size, max_overflow=20)
        self.pg: asyncpg.Pool | None = None
        self.pg_pool_size = PG_POOL_SIZE
        self.trace: Callable[[str], None] | None = None
        """Called with the SQL of each statement sent straight to asyncpg (tests count writes)."""

    async def start(self) -> None:
        """PostgreSQL: open the asyncpg pool of the hot statements (SQLite needs nothing)."""
        if self.dialect == "postgresql" and self.pg is None:
            # The URL's options as SQLAlchemy hands them to asyncpg (``?ssl=…`` and the like),
            # without those only its adapter understands.
            args, kwargs = self.writer.dialect.create_connect_args(self.writer.url)
            for name in ("prepared_statement_cache_size", "prepared_statement_name_func", "async_creator_fn"):
                kwargs.pop(name, None)
            self.pg = await asyncpg.create_pool(
                *args, min_size=1, max_size=self.pg_pool_size, reset=_keep_session, **kwargs
            )

    async def pg_fetch(self, sql: str, *args: Any) -> list[Any]:
        """PostgreSQL: one statement straight on asyncpg (prepared once per connection, one round
        trip, its own transaction); its rows."""
        if self.trace is not None:
            self.trace(sql)
        if self.pg is None:
            await self.start()
        assert self.pg is not None
        return await self.pg.fetch(sql, *args)

    @contextlib.asynccontextmanager
    async def read(self) -> AsyncIterator[AsyncConnection]:
        """A connection for reading. On SQLite each statement sees its own snapshot, so a read
        that needs several statements to agree must run them in ``write()`` instead."""
        async with self.reader.connect() as conn:
            yield conn

    @contextlib.asynccontextmanager
    async def write(self) -> AsyncIterator[AsyncConnection]:
        """One transaction through SQLAlchemy: committed when the block ends, rolled back entirely
        if it raises. On SQLite the writer thread waits between its own transactions meanwhile."""
        if self._write_lock is None:
            async with self.writer.begin() as conn:
                yield conn
            return
        assert self.threads is not None
        async with self._write_lock:
            pause = await self.threads.pause()
            try:
                async with self.writer.begin() as conn:
                    yield conn
            finally:
                pause.resume.set()

    def sqlite_write(self, fn: Callable[..., R], *args: Any, quick: bool = False) -> Awaitable[R]:
        """SQLite: ``fn(conn, *args)`` as one write transaction on the writer thread (grouped with
        whatever else is queued); its result or exception. ``quick`` (a few statements of a few
        rows): it may run on the event loop's own connection, grouped the same way."""
        assert self.threads is not None, "SQLite only"
        return self.threads.write(fn, *args, quick=quick)

    def sqlite_read(self, fn: Callable[..., R], *args: Any) -> Awaitable[R]:
        """SQLite: ``fn(conn, *args)`` on a reader thread's connection, without a transaction."""
        assert self.threads is not None, "SQLite only"
        return self.threads.read(fn, *args)

    def sqlite_read_now(self, fn: Callable[..., R], *args: Any) -> R:
        """SQLite: ``fn(conn, *args)`` at once on the event loop's own connection, without a
        transaction: for reads by key only (microseconds; the loop waits meanwhile)."""
        assert self.threads is not None, "SQLite only"
        return self.threads.read_now(fn, *args)

    async def dispose(self) -> None:
        if self.pg is not None:
            await self.pg.close()
            self.pg = None
        if self.threads is not None:
            await self.threads.close()
        await self.reader.dispose()
        if self.writer is not self.reader:
            await self.writer.dispose()
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


async def _keep_session(_conn: asyncpg.Connection) -> None:
    """What the asyncpg pool runs on a connection it takes back: nothing. Its default sends
    ``RESET ALL; UNLISTEN *; CLOSE ALL; …`` — a second round trip for every one-statement
    ``pg_fetch``, which under load waits for the event loop like the statement did and so holds
    the connection from the next request twice as long. Nothing here sets session state, listens,
    takes advisory locks or opens cursors; an open transaction is still rolled back by the pool."""


def _sqlite_path(url: str) -> tuple[str, bool]:
    """The file of a ``sqlite+aiosqlite:///…`` URL, and whether it is a ``file:`` URI."""
    path = url.split("://", 1)[1][1:]
    path, _, query = path.partition("?")
    if path.startswith("file:") or "uri=true" in query:
        return (path if not query else f"{path}?{query}"), True
    return path, False
