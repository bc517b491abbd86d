"""Group commit on SQLite: a batch of write units in one transaction, each unit's failure its own
(see ``sqlite_threads``' docstring: without savepoints first, then each unit in one, then alone)."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from collections.abc import Callable, Sequence
from typing import Any

Unit = tuple[Callable[..., Any], Sequence[Any], asyncio.Future[Any], asyncio.AbstractEventLoop]
"""A write transaction ``fn(conn, *args)``, its future and the loop waiting on it."""
Outcome = tuple[asyncio.Future[Any], Any, BaseException | None]


def apply_group(conn: sqlite3.Connection, batch: list[Unit]) -> list[Outcome]:
    """Every unit of ``batch`` in one transaction; each in its own savepoint if one fails."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except BaseException as exc:  # the database is locked by another process for too long
        return [(unit[2], None, exc) for unit in batch]
    outcomes: list[Outcome] = []
    try:
        for fn, args, fut, _loop in batch:
            outcomes.append((fut, fn(conn, *args), None))
    except BaseException:
        # A unit failed: undo them all and run the batch again, each unit in a savepoint.
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return _apply_guarded(conn, batch)
    try:
        conn.execute("COMMIT")
        return outcomes
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return [apply_alone(conn, unit) for unit in batch]


def _apply_guarded(conn: sqlite3.Connection, batch: list[Unit]) -> list[Outcome]:
    """Every unit of ``batch`` in one transaction, each in its own savepoint."""
    outcomes: list[Outcome] = []
    try:
        conn.execute("BEGIN IMMEDIATE")
    except BaseException as exc:
        return [(unit[2], None, exc) for unit in batch]
    try:
        for fn, args, fut, _loop in batch:
            conn.execute("SAVEPOINT unit")
            try:
                result = fn(conn, *args)
            except BaseException as exc:
                if not conn.in_transaction:
                    raise _Lost from exc  # SQLite ended the whole transaction
                conn.execute("ROLLBACK TO unit")
                conn.execute("RELEASE unit")
                outcomes.append((fut, None, exc))
                continue
            conn.execute("RELEASE unit")
            outcomes.append((fut, result, None))
        conn.execute("COMMIT")
        return outcomes
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        # Nothing of the batch was committed: each unit again, alone.
        return [apply_alone(conn, unit) for unit in batch]


class _Lost(Exception):
    """A unit's error rolled back the whole group transaction."""


def apply_alone(conn: sqlite3.Connection, unit: Unit) -> Outcome:
    fn, args, fut, _loop = unit
    try:
        conn.execute("BEGIN IMMEDIATE")
        result = fn(conn, *args)
        conn.execute("COMMIT")
    except BaseException as exc:
        if conn.in_transaction:
            with contextlib.suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
        return (fut, None, exc)
    return (fut, result, None)
