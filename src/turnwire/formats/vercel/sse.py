"""UI Message Stream chunks as SSE bytes, ending with ``data: [DONE]``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from turnwire.formats.vercel.error_chunks import agent_failure_text
from turnwire.formats.vercel.stream import Chunk, UIStreamEncoder
from turnwire.framing import SSE_DONE, sse_frame
from turnwire.model import Event


def encode_sse(chunks: Iterable[Chunk], *, done: bool = False) -> bytes:
    """Chunks as SSE bytes (``data: <json>\\n\\n`` each), plus ``data: [DONE]\\n\\n`` when ``done``."""
    if not done and type(chunks) is list and len(chunks) == 1:
        return sse_frame(chunks[0])  # most events encode to one chunk: no list, no join
    body = b"".join([sse_frame(chunk) for chunk in chunks])
    return body + SSE_DONE if done else body


def stream_sse(events: Iterable[Event], encoder: UIStreamEncoder) -> Iterator[bytes]:
    """A whole turn as SSE bytes, ending with ``[DONE]``.

    An exception from ``events`` ends the turn with an error pair (``agent_failure_text``) and a
    proper ``finish``; it is not re-raised, the stream is the report.
    """
    yield encode_sse(encoder.start())
    try:
        for event in events:
            chunks = encoder.encode(event)
            if chunks:
                yield encode_sse(chunks)
    except Exception as exc:
        yield encode_sse(encoder.finish(error=agent_failure_text(exc)), done=True)
        return
    yield encode_sse(encoder.finish(), done=True)
