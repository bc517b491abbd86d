"""The pieces of ``GET /invoke/{session_id}/stream``: reading ``Last-Event-ID`` and cutting a live
log of numbered SSE events after the client's last one (whatever the chunking)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from turnwire.errors import InputError
from turnwire.framing import SSE_KEEPALIVE_LINE, sse_numbered_frames
from turnwire.server.http.errors import RequestError
from turnwire.server.turns.event_ids import after, events_in, parse_last_event_id

pytestmark = pytest.mark.anyio


def test_last_event_id_is_turn_and_count() -> None:
    assert parse_last_event_id("0af3:12") == ("0af3", 12)
    assert parse_last_event_id(" 0af3:1 ") == ("0af3", 1)
    assert parse_last_event_id(None) is None
    assert parse_last_event_id("") is None


@pytest.mark.parametrize("value", ["x", "x:0", "x:01", ":3", "x:", "x:y", "x:-1", "a b:1", "x:1:", "é:1"])
def test_a_malformed_last_event_id_names_the_header(value: str) -> None:
    with pytest.raises(RequestError) as caught:
        parse_last_event_id(value)
    [error] = caught.value.errors
    assert caught.value.status == 400 and isinstance(error, InputError)
    assert error.loc == ("header", "last-event-id") and error.type == "invalid_last_event_id"


def _log(chunk_sizes: list[int]) -> list[bytes]:
    """Numbered events 1…sum(chunk_sizes), grouped into chunks as a live log may hold them."""
    frame = sse_numbered_frames("t")
    out = []
    for size in chunk_sizes:
        out.append(b"".join(frame({"n": 1}) for _ in range(size)))
    return out


async def _from(chunks: list[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


@pytest.mark.parametrize("sizes", [[1] * 9, [3, 3, 3], [9], [2, 5, 1, 1], [4, 1, 4]])
@pytest.mark.parametrize("skip", range(10))
async def test_after_yields_exactly_the_events_past_the_last_one_seen(sizes: list[int], skip: int) -> None:
    chunks = _log(sizes)
    # keepalive lines come between chunks (never inside one) and pass through
    body = [c for chunk in chunks for c in (chunk, SSE_KEEPALIVE_LINE)]
    out = b"".join([b async for b in after(_from(body), skip)])
    events = [e for e in out.replace(SSE_KEEPALIVE_LINE, b"").split(b"\n\n") if e]
    assert [e.split(b"\n")[0] for e in events] == [f"id: t:{n}".encode() for n in range(skip + 1, 10)]
    assert events_in(chunks) == 9


async def test_after_closes_what_it_reads() -> None:
    closed = []

    async def body() -> AsyncIterator[bytes]:
        try:
            for chunk in _log([1, 1, 1]):
                yield chunk
        finally:
            closed.append(True)

    stream = after(body(), 1)
    await anext(stream)
    await stream.aclose()
    assert closed == [True]
