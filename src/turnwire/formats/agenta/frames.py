"""Agenta event frames: ``{"type": <event type>, "data": {camelCase fields}}``.

One table (``WIRE_KEYS``) maps canonical field names to wire keys and drives both directions.

Outbound, ``data`` holds only the fields that are set: ``None`` is omitted, and a tool result's
``output`` is omitted only when ``UNSET`` (an explicit ``null`` output is sent). ``type`` is not
repeated inside ``data`` (the reference repeats it for runner events, its Q8 quirk; clients read the
outer ``type``).

Inbound (reading a stream back) is lenient: a ``type`` inside ``data`` is ignored, unknown keys are
ignored, snake_case keys are read when the camelCase key is absent, and optional fields are taken
as given. ``frame_to_event`` raises
``InputError`` for a frame it cannot read, including an unknown frame type; ``decode_frames`` skips
unknown frame types (runners emit extra ones such as ``attachment_delivery``) and raises for the rest.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any, Final

from turnwire.errors import InputError
from turnwire.model import EVENT_TYPES, UNSET, Event

WIRE_KEYS: Final[dict[str, str]] = {
    "raw_input": "rawInput",
    "is_error": "isError",
    "media_type": "mediaType",
    "stop_reason": "stopReason",
    "trace_id": "traceId",
}
"""Canonical field -> wire key, where they differ. Every other field keeps its name."""

_FIELDS: Final[dict[type, tuple[tuple[str, str], ...]]] = {
    cls: tuple((f.name, WIRE_KEYS.get(f.name, f.name)) for f in dataclasses.fields(cls))
    for cls in EVENT_TYPES.values()
}
"""Event class -> ((field, wire key), ...) in declaration order."""

_OUT_FIELDS: Final[dict[type, tuple[tuple[str, str, Any], ...]]] = {
    cls: tuple(
        (name, key, UNSET if f.default is UNSET else None)
        for (name, key), f in zip(_FIELDS[cls], dataclasses.fields(cls), strict=True)
    )
    for cls in EVENT_TYPES.values()
}
"""Event class -> ((field, wire key, absent marker), ...): a field defaulting to ``UNSET`` sends
``None`` as ``null``; for every other field ``None`` means absent."""

_REQUIRED: Final[dict[type, tuple[tuple[str, str], ...]]] = {
    cls: tuple(
        (f.name, WIRE_KEYS.get(f.name, f.name))
        for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    )
    for cls in EVENT_TYPES.values()
}
"""Event class -> the fields without a default; all of them are strings on the wire."""


def event_to_frame(event: Event) -> dict[str, Any]:
    """A canonical event -> its Agenta frame ``{"type", "data"}`` (unset fields omitted)."""
    data: dict[str, Any] = {}
    for name, key, absent in _OUT_FIELDS[event.__class__]:
        value = getattr(event, name)
        if value is not absent:
            data[key] = value
    return {"type": event.type, "data": data}


def encode_events(events: Iterable[Event]) -> Iterator[dict[str, Any]]:
    """Canonical events -> Agenta frames, one per event, in order."""
    to_frame = event_to_frame
    for event in events:
        yield to_frame(event)


def frame_to_event(frame: Any) -> Event:
    """An Agenta frame (decoded JSON) -> the canonical event.

    Raises ``InputError`` when the frame is not an object with a known string ``type``, when
    ``data`` is present but not an object, or when a required field is missing or not a string.
    """
    if not isinstance(frame, dict):
        raise InputError("a frame must be an object", loc=())
    kind = frame.get("type")
    cls = EVENT_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InputError(f"unknown frame type {kind!r}", loc=("type",), type="unknown_frame")
    data = frame.get("data")
    if data is None:
        data = {}
    elif not isinstance(data, dict):
        raise InputError("frame data must be an object", loc=("data",))
    for name, key in _REQUIRED[cls]:
        value = data.get(key, data.get(name))
        if not isinstance(value, str):
            what = "is required" if value is None else "must be a string"
            raise InputError(what, loc=("data", key))
    kwargs: dict[str, Any] = {}
    for name, key in _FIELDS[cls]:
        if key in data:
            kwargs[name] = data[key]
        elif name in data:
            kwargs[name] = data[name]
    return cls(**kwargs)


def decode_frames(frames: Iterable[Any]) -> Iterator[Event]:
    """Agenta frames -> canonical events, skipping frame types turnwire does not model."""
    for frame in frames:
        try:
            yield frame_to_event(frame)
        except InputError as exc:
            if exc.type != "unknown_frame":
                raise
