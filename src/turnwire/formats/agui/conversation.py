"""A stored conversation as AG-UI messages.

The store's messages carry the conversation note (``Message.metadata[NOTE_KEY]``: message, turn,
session) for adapters that rebuild what their client assembled; it is turnwire's bookkeeping, not
the messages' metadata, and an AG-UI client never saw it (the events carry none). So it is left
out, and the rest is ``render_messages``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from turnwire.formats import without_note
from turnwire.formats.agui.outbound import render_messages
from turnwire.model import Message


def render_conversation(messages: Sequence[Message], approvals: Mapping[str, str]) -> list[dict[str, Any]]:
    """Stored ``messages`` → AG-UI messages without the conversation note (``approvals`` unused:
    an open interrupt is the run's outcome, not a message)."""
    del approvals
    return render_messages([replace(m, metadata=without_note(m.metadata)) for m in messages])
