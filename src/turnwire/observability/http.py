"""The ASGI middleware of an observed app: the request's trace context in, ``traceparent`` out,
HTTP request durations and open streams counted.

Installed only when tracing or metrics is on. It keeps what a turn started by this request needs
(``RequestTrace``: the path, which names the door, and the W3C headers) in the running context;
the turn's span writes its ``traceparent`` there, and the response carries it.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

if TYPE_CHECKING:
    from turnwire.observability.metrics import TurnMetrics

TRACE_HEADERS: Final = (b"traceparent", b"tracestate", b"baggage")
_STREAM_TYPES: Final = (b"text/event-stream", b"application/x-ndjson", b"application/jsonl")

# The door a path ends with (``/agents/{name}/…`` included), as ``turnwire.wire`` names it.
_WIRES: Final = {
    "invoke": "agenta",
    "chat": "vercel",
    "completions": "openai",
    "responses": "responses",
    "agui": "agui",
    "rpc": "agentex",
}


@dataclass(slots=True)
class RequestTrace:
    """What a turn reads of the request it answers, and what it leaves for the response."""

    path: str
    carrier: dict[str, str]
    """The request's ``traceparent``, ``tracestate`` and ``baggage`` headers (those present)."""
    traceparent: str | None = None
    """The turn span's, once a turn started: sent back as the response's ``traceparent``."""
    trace_id: str | None = None
    """The trace id of the turn this request started (also when tracing is off: log lines)."""
    session: str | None = None
    """The session of the turn this request started."""

    @property
    def wire(self) -> str:
        return wire_of(self.path)


_current: ContextVar[RequestTrace | None] = ContextVar("turnwire_request_trace", default=None)


def current_request() -> RequestTrace | None:
    """The request being answered (``None`` outside the middleware: a router mounted elsewhere)."""
    return _current.get()


def wire_of(path: str) -> str:
    """The door a request path is: ``agenta``, ``vercel``, ``openai``, ``responses``, ``agui``,
    ``agentex``, ``a2a``, or ``http`` for anything else."""
    if "/a2a" in path or path.endswith((":send", ":stream")):
        return "a2a"
    last = path.rstrip("/").rpartition("/")[2]
    return _WIRES.get(last, "a2a" if last == "" else "http")


class ObservabilityMiddleware:
    """See the module docstring; ``metrics`` is ``None`` when only tracing is on."""

    def __init__(self, app: ASGIApp, metrics: TurnMetrics | None = None) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        carrier = {
            k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"] if k in TRACE_HEADERS
        }
        trace = RequestTrace(scope["path"], carrier)
        _current.set(trace)
        metrics = self.metrics
        started = time.perf_counter()
        status = 500
        streaming = False

        async def send_traced(message: Message) -> None:
            nonlocal status, streaming
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = message.setdefault("headers", [])
                if trace.traceparent is not None:
                    headers.append((b"traceparent", trace.traceparent.encode("latin-1")))
                if metrics is not None and any(
                    k.lower() == b"content-type" and v.startswith(_STREAM_TYPES) for k, v in headers
                ):
                    streaming = True
                    metrics.open_streams.inc()
            await send(message)

        try:
            await self.app(scope, receive, send_traced)
        finally:
            if metrics is not None:
                if streaming:
                    metrics.open_streams.dec()
                route = scope.get("route")
                template = getattr(route, "path", None) or "unmatched"
                metrics.http_duration.labels(scope["method"], template, str(status)).observe(
                    time.perf_counter() - started
                )
