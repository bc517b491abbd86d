"""Byte framing for streamed responses: Server-Sent Events and NDJSON.

Frames are JSON-ready dicts; they are serialised once with orjson (UTF-8, unescaped) and framed
here. Negotiation (Accept -> transport) lives beside the framing so both read the same names.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import anyio
import orjson

from turnwire.errors import InputError
from turnwire.runtime.channel import END, Channel

SSE_MEDIA_TYPE: Final = "text/event-stream"
NDJSON_MEDIA_TYPE: Final = "application/x-ndjson"
JSONL_MEDIA_TYPE: Final = "application/jsonl"
JSON_MEDIA_TYPE: Final = "application/json"

SSE_DONE: Final = b"data: [DONE]\n\n"
"""The Vercel UI Message Stream's terminator. Agenta SSE streams have none."""

SSE_KEEPALIVE: Final = b": keepalive\n\n"

_dumps = orjson.dumps
T = TypeVar("T")


def sse_frame(frame: Any) -> bytes:
    """One SSE event holding ``frame`` as JSON: ``data: <json>\\n\\n``."""
    return b"data: " + _dumps(frame) + b"\n\n"


def ndjson_frame(frame: Any) -> bytes:
    """One NDJSON line holding ``frame`` as JSON."""
    return _dumps(frame) + b"\n"


# --------------------------------------------------------------------------- negotiation


class Transport(enum.StrEnum):
    """How a response travels: one JSON document, an SSE stream or an NDJSON stream."""

    JSON = "json"
    SSE = "sse"
    NDJSON = "ndjson"


# Server preference order: it decides ties that the Accept header leaves open (``*/*`` → JSON).
SUPPORTED_MEDIA_TYPES: Final[tuple[tuple[str, Transport], ...]] = (
    (JSON_MEDIA_TYPE, Transport.JSON),
    (SSE_MEDIA_TYPE, Transport.SSE),
    (NDJSON_MEDIA_TYPE, Transport.NDJSON),
    (JSONL_MEDIA_TYPE, Transport.NDJSON),
)

MESSAGES_FORMATS: Final = ("agenta", "vercel")


class NotAcceptable(Exception):
    """The Accept header names no media type the server can produce (HTTP 406)."""

    def __init__(self, requested: str) -> None:
        self.requested = requested
        super().__init__(f"none of the requested media types can be served: {requested!r}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "detail": "None of the media types in Accept can be served by this endpoint.",
            "requested": self.requested,
            "supported": [media for media, _ in SUPPORTED_MEDIA_TYPES],
        }


@dataclass(frozen=True, slots=True)
class MediaRange:
    type: str
    subtype: str
    q: float
    position: int

    @property
    def specificity(self) -> int:
        """2 for ``type/sub``, 1 for ``type/*``, 0 for ``*/*``."""
        return 0 if self.type == "*" else (1 if self.subtype == "*" else 2)

    def matches(self, media_type: str) -> bool:
        kind, _, sub = media_type.partition("/")
        return (self.type == "*" or self.type == kind) and (self.subtype == "*" or self.subtype == sub)


def parse_accept(header: str) -> list[MediaRange]:
    """The media ranges of an Accept header, lower-cased, with their q-values.

    Malformed ranges (no ``/``, ``*/json``) are skipped; a malformed or out-of-range ``q`` makes the
    range unacceptable (q=0) rather than silently preferred.
    """
    ranges: list[MediaRange] = []
    for position, item in enumerate(header.split(",")):
        media, *params = item.split(";")
        kind, slash, sub = media.strip().lower().partition("/")
        if not slash or not kind or not sub or (kind == "*" and sub != "*"):
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() != "q":
                continue
            try:
                q = float(value.strip())
            except ValueError:
                q = 0.0
            if not 0.0 <= q <= 1.0:
                q = 0.0
            break  # parameters after q are accept-extensions, not media-type parameters
        ranges.append(MediaRange(kind, sub, q, position))
    return ranges


def negotiate_transport(accept: str | None) -> Transport:
    """The transport an Accept header asks for, by RFC 9110 media-range rules.

    Each supported type takes the q of the most specific range matching it. The highest q wins;
    ties go to the type whose matching range is more specific, then to the range listed first in
    the header, then to the server order JSON, SSE, NDJSON, JSONL. No header (or a blank one) means
    JSON. Raises ``NotAcceptable`` when every supported type ends up with q=0.
    """
    if accept is None or not accept.strip():
        return Transport.JSON
    ranges = parse_accept(accept)
    best: tuple[float, int, int, int] | None = None
    chosen = Transport.JSON
    for order, (media_type, transport) in enumerate(SUPPORTED_MEDIA_TYPES):
        match: MediaRange | None = None
        for r in ranges:
            # The first of equally specific ranges counts: a later duplicate never overrides it.
            if r.matches(media_type) and (match is None or r.specificity > match.specificity):
                match = r
        if match is None or match.q <= 0.0:
            continue
        key = (match.q, match.specificity, -match.position, -order)
        if best is None or key > best:
            best, chosen = key, transport
    if best is None:
        raise NotAcceptable(accept)
    return chosen


def negotiate_format(header: str | None) -> str:
    """The message format named by ``x-ag-messages-format``: ``agenta`` (default) or ``vercel``.

    Matched case-insensitively after trimming whitespace, so ``" Vercel "`` is Vercel. Raises
    ``InputError`` (loc ``("header", "x-ag-messages-format")``) on any other value.
    """
    if header is None:
        return "agenta"
    value = header.strip().lower()
    if not value:
        return "agenta"
    if value in MESSAGES_FORMATS:
        return value
    raise InputError(
        f"unknown messages format {header!r}; expected one of: {', '.join(MESSAGES_FORMATS)}",
        loc=("header", "x-ag-messages-format"),
        type="unknown_messages_format",
    )


# --------------------------------------------------------------------------- keepalive

_orphans: set[asyncio.Task[Any]] = set()


class _Failure:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


async def with_keepalive(source: AsyncIterator[T], interval: float | None) -> AsyncIterator[T | None]:
    """Yield what ``source`` yields, plus ``None`` after every ``interval`` seconds of silence.

    Items are never dropped or reordered, and ``source`` is never asked for an item before the
    previous one was taken: one long-lived task pulls on request, so the wait can be timed without
    a task or timer per item. ``interval`` ``None``/``<= 0`` disables the timer. When this
    generator is closed or cancelled, the pull in flight is cancelled (which unwinds ``source``) or
    ``source`` is closed.
    """
    if interval is None or interval <= 0:
        async for item in source:
            yield item
        return
    loop = asyncio.get_running_loop()
    chan = Channel(1)
    ask: asyncio.Future[None] = loop.create_future()
    pulling = False

    async def pull() -> None:
        nonlocal ask, pulling
        step = source.__anext__
        while True:
            await ask
            ask = loop.create_future()
            pulling = True
            try:
                item: Any = await step()
            except StopAsyncIteration:
                chan.close()
                return
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # handed to the consumer, raised there
                item = _Failure(exc)
            finally:
                pulling = False
            await chan.put(item)
            if item.__class__ is _Failure:
                return

    puller = loop.create_task(pull(), name="turnwire-keepalive-pull")
    asked = False
    try:
        while True:
            if not asked:
                ask.set_result(None)
                asked = True
            if not chan.items and not await chan.wait(interval):
                yield None
                continue
            item = chan.take()
            asked = False
            if item is END:
                return
            if item.__class__ is _Failure:
                raise item.exc
            yield item
    finally:
        puller.cancel()
        if pulling:
            # `source` is mid-step inside the puller: cancelling it unwinds the generator. Keep a
            # strong reference until it finishes; the event loop only holds weak ones.
            _orphans.add(puller)
            puller.add_done_callback(_forget)
        else:
            aclose = getattr(source, "aclose", None)
            if aclose is not None:
                with anyio.CancelScope(shield=True):
                    await aclose()


def _forget(task: asyncio.Future[Any]) -> None:
    _orphans.discard(task)  # type: ignore[arg-type]
    if not task.cancelled():
        task.exception()  # retrieved, so asyncio does not log "never retrieved"
