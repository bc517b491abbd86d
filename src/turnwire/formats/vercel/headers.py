"""HTTP headers of Vercel-format responses (content-type is the server's job)."""

from __future__ import annotations

from typing import Final

BATCH_HEADERS: Final[dict[str, str]] = {
    "x-ag-messages-format": "vercel",
    "x-ag-messages-version": "v1",
}
"""Headers of a batch (JSON) response whose messages are UIMessages."""

STREAM_HEADERS: Final[dict[str, str]] = {
    "x-vercel-ai-ui-message-stream": "v1",
    **BATCH_HEADERS,
    "cache-control": "no-cache",
    # Proxies (nginx) must pass each chunk through as it comes.
    "x-accel-buffering": "no",
}
"""Headers of a UI Message Stream response."""
