"""A source (a citation) as the store keeps it: one JSON object of a fixed shape, in a note beside
the content it was streamed next to (``sources_before`` / ``sources_after``,
``formats.agentex.annotations``) or, for a source a client sent in its history, as a data content.
A custom event is noted in the same lists (one list keeps their stream order), never as a content.

``{"type": "source_url", "id", "url", "title"?}`` / ``{"type": "source_document", "id",
"media_type", "title", "filename"?}`` / ``{"type": "custom", "kind", "data"?}``: the canonical
fields, absent ones (and a custom event's ``None`` data) left out.
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.model import (
    CustomEvent,
    SourceBlock,
    SourceDocument,
    SourceDocumentBlock,
    SourceUrl,
    SourceUrlBlock,
)

_URL_FIELDS: Final = {"type": True, "id": True, "url": True, "title": False}
_DOCUMENT_FIELDS: Final = {"type": True, "id": True, "media_type": True, "title": True, "filename": False}
"""Field → required, per kind: the exact shape ``source_block`` reads back."""


def source_data(source: SourceUrl | SourceDocument | SourceBlock) -> dict[str, Any]:
    """The stored form of a source event or block."""
    if isinstance(source, SourceUrl | SourceUrlBlock):
        data: dict[str, Any] = {"type": "source_url", "id": source.id, "url": source.url}
        if source.title is not None:
            data["title"] = source.title
        return data
    data = {
        "type": "source_document",
        "id": source.id,
        "media_type": source.media_type,
        "title": source.title,
    }
    if source.filename is not None:
        data["filename"] = source.filename
    return data


def source_block(data: Any) -> SourceBlock | None:
    """The block a stored source stands for, if ``data`` is exactly that shape (else ``None``)."""
    if not isinstance(data, dict):
        return None
    kind = data.get("type")
    fields = _URL_FIELDS if kind == "source_url" else _DOCUMENT_FIELDS if kind == "source_document" else None
    if fields is None:
        return None
    for key, value in data.items():
        if key not in fields or not isinstance(value, str):
            return None
    if any(required and key not in data for key, required in fields.items()):
        return None
    if kind == "source_url":
        return SourceUrlBlock(data["id"], data["url"], data.get("title"))
    return SourceDocumentBlock(data["id"], data["media_type"], data["title"], data.get("filename"))


def source_blocks(noted: Any) -> list[SourceBlock]:
    """The blocks of a note's list of stored sources (entries of another shape are skipped)."""
    if not isinstance(noted, list):
        return []
    return [block for block in map(source_block, noted) if block is not None]


def custom_data(event: CustomEvent) -> dict[str, Any]:
    """The stored form of a custom event."""
    if event.data is None:
        return {"type": "custom", "kind": event.kind}
    return {"type": "custom", "kind": event.kind, "data": event.data}


def custom_of(data: Any) -> CustomEvent | None:
    """The custom event a noted entry stands for (``None``: a source, or another shape)."""
    if not isinstance(data, dict) or data.get("type") != "custom" or not isinstance(data.get("kind"), str):
        return None
    return CustomEvent(data["kind"], data.get("data"))
