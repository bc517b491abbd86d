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
from collections.abc import Callable, Iterable, Iterator
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


def _build_decoder(cls: type) -> Callable[[dict[str, Any]], Any] | None:
    """``decode(data)`` for one event class, generated once from ``WIRE_KEYS``: the event built
    positionally, or ``None`` when a required field is not exactly a ``str`` (the caller then takes
    the checked path, which names the problem). Reads keys exactly as the checked path does.
    ``None`` (no decoder: always the checked path) for a class with a ``default_factory`` field."""
    if any(f.default_factory is not dataclasses.MISSING for f in dataclasses.fields(cls)):
        return None
    names: dict[str, Any] = {"cls": cls}
    lines = ["def decode(data):"]
    required: list[str] = []
    args: list[str] = []
    for i, f in enumerate(dataclasses.fields(cls)):
        key = WIRE_KEYS.get(f.name, f.name)
        var = f"v{i}"
        if f.default is dataclasses.MISSING:
            fallback = "None"
            required.append(var)
        else:
            fallback = f"d{i}"
            names[fallback] = f.default
        if key == f.name:
            lines.append(f"    {var} = data.get({key!r}, {fallback})")
        else:
            lines.append(
                f"    {var} = data[{key!r}] if {key!r} in data else data.get({f.name!r}, {fallback})"
            )
        args.append(var)
    if required:
        checks = " or ".join(f"{var}.__class__ is not str" for var in required)
        lines.append(f"    if {checks}:")
        lines.append("        return None")
    lines.append(f"    return cls({', '.join(args)})")
    exec("\n".join(lines), names)  # the source is built above from dataclass fields only
    return names["decode"]


_DECODERS: Final[dict[str, Callable[[dict[str, Any]], Any]]] = {
    kind: decode for kind, cls in EVENT_TYPES.items() if (decode := _build_decoder(cls)) is not None
}
"""Frame type -> its fast decoder (see ``_build_decoder``)."""


def frame_to_event(frame: Any) -> Event:
    """An Agenta frame (decoded JSON) -> the canonical event.

    Raises ``InputError`` when the frame is not an object with a known string ``type``, when
    ``data`` is present but not an object, or when a required field is missing or not a string.
    """
    if frame.__class__ is dict:
        kind = frame.get("type")
        if kind.__class__ is str:
            decode = _DECODERS.get(kind)
            data = frame.get("data")
            if decode is not None and data.__class__ is dict:
                event = decode(data)
                if event is not None:
                    return event
    return _checked_frame_to_event(frame)


def _checked_frame_to_event(frame: Any) -> Event:
    """``frame_to_event`` for any input, field by field: every problem becomes an ``InputError``."""
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
    decoders = _DECODERS
    for frame in frames:
        # The common case inline (no call per frame); anything unusual goes through the checks.
        if frame.__class__ is dict:
            kind = frame.get("type")
            data = frame.get("data")
            if kind.__class__ is str and data.__class__ is dict:
                decode = decoders.get(kind)
                if decode is not None:
                    event = decode(data)
                    if event is not None:
                        yield event
                        continue
        try:
            yield _checked_frame_to_event(frame)
        except InputError as exc:
            if exc.type != "unknown_frame":
                raise
