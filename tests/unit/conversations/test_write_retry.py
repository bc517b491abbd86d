"""Which store failures the recorder retries, and that it gives up after a bounded time."""

from __future__ import annotations

import asyncio
import sqlite3

import asyncpg
import pytest
import sqlalchemy.exc

from turnwire.conversations import write_retry
from turnwire.conversations.write_retry import TurnNotStored, write_with_retries
from turnwire.store.errors import NotFoundError
from turnwire.store.transient import is_transient


def _wrapped(orig: BaseException) -> sqlalchemy.exc.DBAPIError:
    return sqlalchemy.exc.OperationalError("INSERT ...", {}, orig)


@pytest.mark.parametrize(
    "exc",
    [
        sqlite3.OperationalError("database is locked"),
        _wrapped(sqlite3.OperationalError("database is locked")),
        ConnectionRefusedError(111, "refused"),
        ConnectionResetError(),
        TimeoutError(),
        asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.exceptions.CannotConnectNowError("the database system is starting up"),
        asyncpg.exceptions.DeadlockDetectedError("deadlock detected"),
    ],
    ids=repr,
)
def test_transient_failures(exc: BaseException) -> None:
    assert is_transient(exc)


@pytest.mark.parametrize(
    "exc",
    [
        sqlite3.DatabaseError("database disk image is malformed"),
        sqlite3.IntegrityError("UNIQUE constraint failed: messages.id"),
        _wrapped(sqlite3.OperationalError("no such table: messages")),
        asyncpg.exceptions.UniqueViolationError("duplicate key"),
        NotFoundError("task-1"),
        ValueError("bad"),
    ],
    ids=repr,
)
def test_failures_that_a_retry_would_not_fix(exc: BaseException) -> None:
    assert not is_transient(exc)


def test_a_transient_failure_is_retried_until_the_write_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(write_retry, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    tries: list[int] = []

    async def write() -> str:
        tries.append(1)
        if len(tries) < 3:
            raise sqlite3.OperationalError("database is locked")
        return "written"

    assert asyncio.run(write_with_retries(write, "t", "a turn")) == "written"
    assert len(tries) == 3


@pytest.mark.parametrize(
    "error", [sqlite3.OperationalError("database is locked"), sqlite3.DatabaseError("x")]
)
def test_a_write_that_never_passes_is_given_up(monkeypatch: pytest.MonkeyPatch, error: Exception) -> None:
    monkeypatch.setattr(write_retry, "RETRY_DELAYS", (0.0, 0.0))
    tries: list[int] = []

    async def write() -> None:
        tries.append(1)
        raise error

    with pytest.raises(TurnNotStored) as raised:
        asyncio.run(write_with_retries(write, "t", "a turn"))
    assert raised.value.__cause__ is error
    assert len(tries) == (3 if is_transient(error) else 1)
