"""What a stored content carries beyond Agentex's fields, so other formats read it back exactly.

The store keeps Agentex contents, one per canonical block. A UIMessage reader also needs the id of
the message a content belongs to (the client's own id, or the stream's ``start.messageId``), the
turn that wrote it (where the stream opened its steps), a reasoning part's id, a data part's name,
and per turn its usage and stop reason. They ride in ``content["turnwire"]``:

- ``message_id``: the message the content is part of;
- ``turn``: the trace id of the turn that wrote it (absent on the client's own messages);
- ``part_id``: a reasoning part's id; ``wrapped``: a data block stored as ``{name, value}``;
- ``render``: a call's or result's ``render`` (the stream's ``data-render`` part after it);
- ``error_detail``: an error's ``detail`` (the stream's ``data-agent-error.errorDetail``);
- ``usage``, ``stop_reason``: on the last content of a turn.

Agentex readers never see the key (``public``): it is not part of their wire.
"""

from __future__ import annotations

from typing import Any, Final

KEY: Final = "turnwire"


def annotation(content: dict[str, Any]) -> dict[str, Any]:
    """The content's annotation (``{}`` when it has none)."""
    value = content.get(KEY)
    return value if isinstance(value, dict) else {}


def annotated(content: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A copy of ``content`` whose annotation also holds ``fields`` (``None`` values left out)."""
    extra = {k: v for k, v in fields.items() if v is not None}
    if not extra:
        return content
    return {**content, KEY: {**annotation(content), **extra}}


def public(content: dict[str, Any]) -> dict[str, Any]:
    """``content`` as an Agentex reader gets it: without the annotation."""
    if KEY not in content:
        return content
    return {k: v for k, v in content.items() if k != KEY}


def public_record(record: dict[str, Any]) -> dict[str, Any]:
    """A TaskMessage as an Agentex reader gets it."""
    content = record.get("content")
    if isinstance(content, dict) and KEY in content:
        return {**record, "content": public(content)}
    return record
