"""Content negotiation: ``Accept`` → transport (JSON, SSE, NDJSON), ``x-ag-messages-format`` → format."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from turnwire.errors import InputError
from turnwire.framing import JSON_MEDIA_TYPE, JSONL_MEDIA_TYPE, NDJSON_MEDIA_TYPE, SSE_MEDIA_TYPE


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


def negotiate_format(header: str | None, names: Sequence[str], default: str) -> str:
    """The message format named by ``x-ag-messages-format``: one of ``names``, ``default`` when
    the header is absent or blank.

    Matched case-insensitively after trimming whitespace, so ``" Vercel "`` is Vercel. Raises
    ``InputError`` (loc ``("header", "x-ag-messages-format")``) on any other value.
    """
    if header is None:
        return default
    value = header.strip().lower()
    if not value:
        return default
    if value in names:
        return value
    raise InputError(
        f"unknown messages format {header!r}; expected one of: {', '.join(names)}",
        loc=("header", "x-ag-messages-format"),
        type="unknown_messages_format",
    )
