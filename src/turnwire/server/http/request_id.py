"""Request ids: every response carries ``x-request-id``; every server error is logged with it and
its body carries it too, so a user's report can be matched to the server's log line without the
body ever holding the error itself (exception class, SQL, driver message, file path).

An incoming ``x-request-id`` of 1-128 characters of ``A-Z a-z 0-9 . _ : -`` is kept (a proxy's or
client's id); anything else is replaced by a new id: 32 hex digits, a random prefix of the process
(drawn again in a forked child) and a counter. A request id is a label, not a secret: it needs to
be unique, not unguessable, and a counter costs no ``os.urandom`` call (which releases the GIL,
a hand-off to another thread on every request of a server with a database thread).
"""

from __future__ import annotations

import itertools
import logging
import os
import re
from contextvars import ContextVar
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUEST_ID_HEADER: Final = "x-request-id"
_WELL_FORMED: Final = re.compile(r"[A-Za-z0-9._:-]{1,128}")
_log = logging.getLogger("turnwire.server")
_current: ContextVar[str | None] = ContextVar("turnwire_request_id", default=None)


class _Ids:
    """Unique ids of this process: its random prefix and a counter."""

    def __init__(self) -> None:
        self.reset()
        os.register_at_fork(after_in_child=self.reset)

    def reset(self) -> None:
        self.prefix = os.urandom(8).hex()
        self.counter = itertools.count(1)


_IDS = _Ids()


def new_request_id() -> str:
    """A new id, 32 hex digits, unique across processes (see the module docstring)."""
    return f"{_IDS.prefix}{next(_IDS.counter):016x}"


def request_id(scope: Scope | None = None) -> str:
    """The id of the request being handled (from ``scope`` if given, else the running context);
    outside a request (a router mounted without the middleware), a new id."""
    if scope is not None:
        found = scope.get("state", {}).get("request_id")
        if isinstance(found, str):
            return found
    return _current.get() or new_request_id()


def current_request_id() -> str | None:
    """The id of the request being handled, ``None`` outside one (never a new id: log lines)."""
    return _current.get()


def accepted_id(value: str | None) -> str:
    """``value`` if it is a well-formed request id, else a new one."""
    return value if value is not None and _WELL_FORMED.fullmatch(value) else new_request_id()


class RequestIdMiddleware:
    """Gives every HTTP request an id (``scope["state"]["request_id"]`` and the running context)
    and adds it to the response as ``x-request-id``."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        incoming = next((v for k, v in scope["headers"] if k == b"x-request-id"), None)
        rid = accepted_id(incoming.decode("latin-1") if incoming is not None else None)
        scope.setdefault("state", {})["request_id"] = rid
        # Each request runs in its own task, so this value is the request's alone. It is not
        # reset on the way out: the outermost error handler (a 500) runs after this returns.
        _current.set(rid)
        header = (REQUEST_ID_HEADER.encode(), rid.encode())

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers: list[Any] = [h for h in message.get("headers", []) if h[0].lower() != header[0]]
                message = {**message, "headers": [*headers, header]}
            await send(message)

        await self.app(scope, receive, send_with_id)


def log_failure(exc: BaseException, what: str, scope: Scope | None = None) -> str:
    """Log ``exc`` (with its traceback) as an unexpected failure of ``what`` under the request's id;
    that id, for the error body. The body must say no more than that it failed."""
    rid = request_id(scope)
    _log.error("%s failed [request_id=%s]", what, rid, exc_info=exc)
    return rid


def log_refusal(status: int, why: str, scope: Scope | None = None) -> None:
    """Log a request the server refused (a 4xx) at INFO, under the request's id."""
    _log.info("request refused: %d %s [request_id=%s]", status, why, request_id(scope))


def internal_error_message(rid: str) -> str:
    return f"Internal server error (logged on the server with request id {rid})"
