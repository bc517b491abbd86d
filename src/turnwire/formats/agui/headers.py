"""HTTP headers of AG-UI responses (content-type is the server's job: ``text/event-stream``)."""

from __future__ import annotations

from typing import Final

BATCH_HEADERS: Final[dict[str, str]] = {"x-ag-messages-format": "agui"}
"""Headers of a JSON response whose messages are AG-UI messages (history reads)."""

STREAM_HEADERS: Final[dict[str, str]] = {
    **BATCH_HEADERS,
    "cache-control": "no-cache",
    # Proxies (nginx) must pass each event through as it comes.
    "x-accel-buffering": "no",
}
"""Headers of an AG-UI event stream."""
