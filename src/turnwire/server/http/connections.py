"""HTTP/1.1 connections as ``turnwire serve`` runs them: bounded request heads, slow clients cut.

uvicorn's httptools protocol buffers a request head of any size (a 32 MB header is read whole) and
waits forever for a head or a body that never ends (one byte every few seconds keeps a socket open
for good). ``BoundedHttpToolsProtocol`` is that protocol with four limits (``ConnectionLimits``,
from ``Settings``):

- a head (URL and header fields) larger than ``max_header_bytes``, or with more than
  ``max_headers`` fields, is answered **431** and the connection closed — counted while the bytes
  arrive, so no more than the limit plus one socket read is ever buffered;
- a head not complete ``header_timeout_seconds`` after its first byte (or after the connection
  opened, for its first request) is answered **408** and closed; a connection that never sent a
  byte is closed silently;
- a request body that gets no new bytes for ``body_timeout_seconds`` (while the server is ready to
  read it) is answered **408** when no response has started, and the connection closed; the app
  sees the client gone, as for any disconnect.

Idle keep-alive connections between requests keep uvicorn's own ``timeout_keep_alive``. The limits
travel on the uvicorn ``Config`` (``config.connection_limits``), which worker processes receive
pickled, so every worker enforces the same ones.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Any, Final

import httptools
import orjson
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol

log = logging.getLogger("turnwire.server.http.connections")
CONFIG_ATTRIBUTE: Final = "connection_limits"
_FIELD_OVERHEAD: Final = 4  # ": " and CRLF around each header field
LINGER_SECONDS: Final = 2.0


@dataclass(frozen=True, slots=True)
class ConnectionLimits:
    max_header_bytes: int = 32 * 1024
    max_headers: int = 100
    header_timeout_seconds: float = 20.0
    body_timeout_seconds: float = 30.0


class HeadTooLarge(Exception):
    """Raised from a parser callback: the head broke a limit (the parser stops there)."""


def _error(status: int, msg: str, loc: list[str], kind: str) -> bytes:
    """A complete ``connection: close`` response with turnwire's error body."""
    body = orjson.dumps({"detail": [{"loc": loc, "msg": msg, "type": kind}]})
    head = [
        STATUS_LINE[status],
        b"content-type: application/json\r\n",
        b"content-length: " + str(len(body)).encode() + b"\r\n",
        b"connection: close\r\n\r\n",
    ]
    return b"".join(head) + body


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with bounded heads and timed-out slow clients."""

    def __init__(self, config: Any, *args: Any, **kwargs: Any) -> None:
        super().__init__(config, *args, **kwargs)
        self.limits: ConnectionLimits = getattr(config, CONFIG_ATTRIBUTE, None) or ConnectionLimits()
        self._in_head = True  # the bytes arriving now belong to a request head
        self._head_began = False  # a byte of that head arrived
        self._head_bytes = 0
        self._head_fields = 0
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None
        self._body_progress = 0.0
        self._refused = False

    # ------------------------------------------------------------------ connection
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_head_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._refused:  # what a refused client still sends is read and dropped (``_linger``)
            return
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError as exc:
            cause = exc.__context__
            if isinstance(cause, HeadTooLarge):
                self._refuse_head(str(cause))
            else:
                self.logger.warning("Invalid HTTP request received.")
                self.send_400_response("Invalid HTTP request received.")
            return
        if self._in_head:
            # Still inside a head: every byte of this read was head (give or take the tail of a
            # pipelined request before it), and the parser holds them all.
            self._head_bytes += len(data)
            if self._head_bytes > self.limits.max_header_bytes:
                self._refuse_head(self._size_message())

    # ------------------------------------------------------------------ parser callbacks
    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = self._head_began = True
        self._head_bytes = 0
        self._head_fields = 0
        self._arm_head_timer()

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_fields += 1
        if self._head_fields > self.limits.max_headers:
            raise HeadTooLarge(f"the request has more than {self.limits.max_headers} header fields")
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        size = len(self.url) + sum(len(n) + len(v) + _FIELD_OVERHEAD for n, v in self.headers)
        if size > self.limits.max_header_bytes:
            raise HeadTooLarge(self._size_message())
        self._in_head = self._head_began = False
        self._cancel_head_timer()
        super().on_headers_complete()
        self._body_progress = self.loop.time()
        self._arm_body_timer(self.limits.body_timeout_seconds)

    def on_body(self, body: bytes) -> None:
        self._body_progress = self.loop.time()
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._cancel_body_timer()
        super().on_message_complete()

    # ------------------------------------------------------------------ refusals
    def _size_message(self) -> str:
        return f"the request's header fields exceed {self.limits.max_header_bytes} bytes"

    def _refuse_head(self, msg: str) -> None:
        self._cancel_timers()
        client = f"{self.client[0]}:{self.client[1]}" if self.client else "?"
        log.info("request refused: 431 %s (client %s)", msg, client)
        self._linger(_error(431, msg, ["header"], "headers_too_large"))

    def _linger(self, response: bytes) -> None:
        """Answer, then read and drop what the client still sends for a moment before closing:
        closing with its bytes unread would reset the connection, and the client could lose the
        answer before reading it."""
        self._refused = True
        self.transport.write(response)
        if self.transport.can_write_eof():
            self.transport.write_eof()
        self.loop.call_later(LINGER_SECONDS, self._close_with, None)

    def _close_with(self, response: bytes | None) -> None:
        if self.transport.is_closing():
            return
        cycle = self.cycle
        if cycle is not None and not cycle.response_complete:
            # The app (if one runs) sees its client gone; nothing it sends now reaches the socket.
            cycle.disconnected = True
            cycle.message_event.set()
            if cycle.response_started:
                response = None
        if response is not None:
            self.transport.write(response)
        self.transport.close()

    # ------------------------------------------------------------------ timers
    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.limits.header_timeout_seconds, self._head_timed_out)

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if not self._in_head:
            return
        timeout = self.limits.header_timeout_seconds
        if not self._head_began:  # a connection that never sent a byte: nobody to answer
            self._close_with(None)
            return
        log.info("request refused: 408 the request head took longer than %ss", timeout)
        msg = f"the request's head did not arrive within {timeout} s"
        self._close_with(_error(408, msg, ["header"], "header_timeout"))

    def _arm_body_timer(self, delay: float) -> None:
        self._cancel_body_timer()
        self._body_timer = self.loop.call_later(delay, self._body_check)

    def _body_check(self) -> None:
        self._body_timer = None
        cycle = self.cycle
        if cycle is None or not cycle.more_body or self.transport.is_closing():
            return
        waited = self.loop.time() - self._body_progress
        timeout = self.limits.body_timeout_seconds
        # Our own back-pressure (the app has not read what came) or a client waiting for
        # "100 Continue" is not the client being slow.
        if self.flow.read_paused or cycle.waiting_for_100_continue:
            self._body_progress = self.loop.time()
            waited = 0.0
        if waited < timeout:
            self._arm_body_timer(timeout - waited)
            return
        log.info("request refused: 408 no request body bytes for %ss", timeout)
        msg = f"the request's body got no bytes for {timeout} s"
        self._close_with(_error(408, msg, ["body"], "body_timeout"))

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _cancel_body_timer(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None

    def _cancel_timers(self) -> None:
        self._cancel_head_timer()
        self._cancel_body_timer()
