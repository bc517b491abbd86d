"""Conversion between wire formats through the canonical model."""

from __future__ import annotations

from typing import Any

from turnwire.formats import get_format


def convert(messages: Any, *, source: str, target: str) -> list[dict[str, Any]]:
    """Convert a decoded JSON array of ``source`` messages into ``target`` messages.

    Raises ``InputError`` (naming the message index and field) on input the source format rejects
    and ``UnknownFormatError`` on an unknown format name.
    """
    src, dst = get_format(source), get_format(target)
    return dst.render_messages(src.parse_messages(messages))
