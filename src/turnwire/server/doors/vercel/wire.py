"""The Vercel door's format and the wire name its turns are registered under."""

from __future__ import annotations

from typing import Final

from turnwire.formats import get_format
from turnwire.server.http.negotiation import Transport

VERCEL: Final = get_format("vercel")
CHAT_WIRE: Final = f"{VERCEL.name}/{Transport.SSE.value}"
"""What a /chat turn's log holds: a reconnecting chat page replays only such a log."""
