"""A canonical ``CustomEvent`` as ai 7 holds it: a ``custom`` part of the assistant message, made
by the stream's ``custom`` chunk (the same object) and read back from the store's note of it.

The part keeps only ``kind`` and ``providerMetadata`` (ai 7's ``processUIMessageStream``), so the
event's data rides in ``providerMetadata.turnwire.data`` (left out when it is ``None``).
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.formats.vercel.versions import ClientVersion
from turnwire.model import Block, UnknownBlock

CUSTOM: Final = "custom"
PROVIDER: Final = "turnwire"
"""The ``providerMetadata`` key the data rides under."""


def custom_part(kind: str, data: Any) -> dict[str, Any]:
    """The ``custom`` chunk of a stream, which is also the part ai 7 pushes for it."""
    part: dict[str, Any] = {"type": CUSTOM, "kind": kind}
    if data is not None:
        part["providerMetadata"] = {PROVIDER: {"data": data}}
    return part


def custom_block(kind: str, data: Any, version: Any) -> Block | None:
    """The block a reader of ``version`` holds for a custom event (``WireFormat.custom_block``):
    ai 7's part as it is (``outbound`` renders a ``custom`` part as it came); older clients and
    ``DEFAULT`` none (their stream got a transient ``data-custom``, no part)."""
    if not isinstance(version, ClientVersion) or not version.custom_parts:
        return None
    return UnknownBlock(custom_part(kind, data))
