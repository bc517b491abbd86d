"""Which browser pages may call the server: CORS for the configured origins only (none by default).

Without an allowed origin a browser never lets a page of another origin read an answer, nor send a
request that needs a preflight (any JSON POST does). The 415 of non-JSON bodies (``server.body``)
closes the remaining gap: "simple" cross-site posts, which browsers send without a preflight.
"""

from __future__ import annotations

from typing import Final

from fastapi import FastAPI
from starlette.middleware.cors import CORSMiddleware

from turnwire.server.settings import Settings

EXPOSED_HEADERS: Final = (
    "x-request-id",
    "x-ag-session-id",
    "x-ag-task-id",
    "x-ag-trace-id",
    "x-ag-messages-format",
    "x-ag-messages-version",
    "x-ag-type",
    "x-ag-version",
    "x-ag-history",
    "x-vercel-ai-ui-message-stream",
    "x-should-retry",
)
"""Response headers a page may read: turnwire's own and the ones its wire formats define."""


def install_browser_policy(app: FastAPI, settings: Settings) -> None:
    """Answer CORS preflights and mark answers readable for ``settings.cors_origins``; nothing when
    there are none (then a browser keeps every other origin out)."""
    origins = list(settings.cors_origins)
    if not origins:
        return
    app.add_middleware(
        CORSMiddleware,
        allow_origins=origins,
        allow_methods=["GET", "POST", "PUT", "DELETE"],
        # Whatever the page's client sends: content-type, authorization, the AI SDK's user-agent
        # suffix and x-ai-sdk-version, the agentex client's x-stainless-* and idempotency-key.
        allow_headers=["*"],
        expose_headers=list(EXPOSED_HEADERS),
        allow_credentials=False,  # API keys travel in a header, never as cookies
        max_age=600,
    )
