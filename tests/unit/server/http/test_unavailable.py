"""Which failures mean "a required service is unreachable" (503 + Retry-After), and which stay a
500: a connection error of the store or Redis, however wrapped; never a bug's exception."""

from __future__ import annotations

import asyncpg.exceptions as pg
import pytest
import redis.exceptions as redis_errors
import sqlalchemy.exc as sa_exc

from turnwire.server.http.errors import error_response
from turnwire.server.http.unavailable import unreachable


def _caused(outer: Exception, inner: Exception) -> Exception:
    try:
        try:
            raise inner
        except Exception as exc:
            raise outer from exc
    except Exception as final:
        return final


@pytest.mark.parametrize(
    ("exc", "service"),
    [
        (ConnectionRefusedError(111, "Connect call failed"), "store"),
        (pg.CannotConnectNowError("the database system is starting up"), "store"),
        (pg.AdminShutdownError("terminating connection due to administrator command"), "store"),
        (pg.ConnectionDoesNotExistError("connection was closed in the middle of operation"), "store"),
        (sa_exc.DBAPIError("SELECT 1", None, ConnectionResetError(), connection_invalidated=True), "store"),
        (sa_exc.OperationalError("SELECT 1", None, pg.CannotConnectNowError("starting up")), "store"),
        (_caused(RuntimeError("store failed"), ConnectionRefusedError()), "store"),
        (redis_errors.ConnectionError("Connection closed by server."), "redis"),
        (redis_errors.TimeoutError("Timeout reading from 127.0.0.1:6379"), "redis"),
        (ValueError("a bug"), None),
        (pg.UniqueViolationError("duplicate key"), None),
        (sa_exc.IntegrityError("INSERT", None, ValueError("constraint")), None),
    ],
)
def test_unreachable_names_the_service(exc: Exception, service: str | None) -> None:
    assert unreachable(exc) == service


def test_an_unreachable_store_answers_503_with_retry_after() -> None:
    r = error_response(pg.CannotConnectNowError("the database system is starting up"))
    assert r.status_code == 503 and r.headers["retry-after"] == "2"
    assert b'"service_unavailable"' in r.body and b"starting up" not in r.body  # no driver text
    assert error_response(ValueError("a bug")).status_code == 500
