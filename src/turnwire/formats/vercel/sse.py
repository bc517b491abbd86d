"""UI Message Stream chunks as SSE bytes (``data: [DONE]`` ends a stream)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from turnwire.formats import StreamEncoder, encode_stream
from turnwire.formats.vercel.stream import Chunk
from turnwire.framing import SSE_DONE, sse_frame
from turnwire.model import Event


def encode_sse(chunks: Iterable[Chunk], *, done: bool = False) -> bytes:
    """Chunks as SSE bytes (``data: <json>\\n\\n`` each), plus ``data: [DONE]\\n\\n`` when ``done``."""
    if not done and type(chunks) is list and len(chunks) == 1:
        return sse_frame(chunks[0])  # most events encode to one chunk: no list, no join
    body = b"".join([sse_frame(chunk) for chunk in chunks])
    return body + SSE_DONE if done else body


def stream_sse(events: Iterable[Event], encoder: StreamEncoder) -> Iterator[bytes]:
    """A whole turn as SSE bytes, ending with ``[DONE]`` (``formats.encode_stream``, framed)."""
    for chunk in encode_stream(events, encoder):
        yield sse_frame(chunk)
    yield SSE_DONE
