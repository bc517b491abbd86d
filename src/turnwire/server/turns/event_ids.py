"""Numbered SSE events: ``<turn id>:<n>``, the turn, then the event's position in it from 1, and a
client's ``Last-Event-ID`` naming the last one it got (the Agenta and AG-UI resume routes)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Final

from turnwire.server.http.errors import RequestError

LAST_EVENT_ID: Final = "last-event-id"
LOC: Final = ("header", LAST_EVENT_ID)
_EVENT_ID = re.compile(r"(?P<turn>[A-Za-z0-9._-]{1,128}):(?P<n>[1-9][0-9]{0,11})")
EVENT_ID_RULE: Final = "Last-Event-ID must be an event id this server sent: <turn id>:<n>, n >= 1"


def parse_last_event_id(value: str | None) -> tuple[str, int] | None:
    """``(turn id, events seen)`` of a ``Last-Event-ID`` header; ``None`` when absent or blank."""
    if value is None or not value.strip():
        return None
    match = _EVENT_ID.fullmatch(value.strip())
    if match is None:
        raise RequestError.at(400, EVENT_ID_RULE, LOC, "invalid_last_event_id")
    return match["turn"], int(match["n"])


def events_in(chunks: list[bytes]) -> int:
    """How many numbered SSE events ``chunks`` (whole events) hold: one blank line each."""
    return sum(chunk.count(b"\n\n") for chunk in chunks)


async def after(body: AsyncGenerator[bytes, None], skip: int) -> AsyncIterator[bytes]:
    """``body`` (whole numbered SSE events, and keepalive lines) without its first ``skip`` events."""
    async with contextlib.aclosing(body):
        async for data in body:
            if skip:
                count = data.count(b"\n\n")
                if count and count <= skip:
                    skip -= count
                    continue
                if count:
                    cut = -2
                    for _ in range(skip):
                        cut = data.index(b"\n\n", cut + 2)
                    data, skip = data[cut + 2 :], 0
            yield data
