"""The request controls of an Agenta ``/invoke`` (agenta 0.125.1's ``WorkflowInvokeRequestFlags``
and the headers that fill them): ``flags.stream``, ``flags.trim``, ``flags.detached``,
``flags.force``.

A flag the body names (even ``null``) wins over its header, as in the reference's invoke prelude;
``null`` or absent is false, but for ``stream`` (absent: ``Accept`` decides) and ``detached``
(absent: ``x-ag-on-disconnect`` or the server's ``on_disconnect`` decides).

- ``stream``: ``true`` streams although ``Accept`` names no stream type (NDJSON Agenta frames, as
  the reference answers a stream to an ``Accept`` it does not recognise); ``true`` with ``Accept``
  naming ``application/json`` only, or ``false`` with ``Accept`` naming a stream type only, is a
  406 — before the turn runs (the reference runs the turn, then answers 406).
- ``trim`` / ``x-ag-messages-transcript: last|full``: a batch answer's messages cut to their
  trailing unit (``trim_to_trailing_unit``). Streams are never trimmed.
- ``detached``: the turn goes on when its client leaves (``x-ag-on-disconnect: continue``).
- ``force`` / ``x-ag-session-control: force``: the request attaches to or takes over the
  conversation's running turn (the reference refuses it with 406, "not supported yet"). With no
  messages on an SSE request, it attaches: the running turn's events, after ``Last-Event-ID`` if
  given (``GET /invoke/{session_id}/stream``); else (or when nothing runs) it is a turn with the
  ``interrupt`` multitask strategy: the running turn is stopped, its partial reply stored, and
  this one runs after it (``server.turns.multitask``).

``resolve`` (reference embeds) is accepted and has no effect: turnwire resolves no references.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from turnwire.server.http.errors import RequestError
from turnwire.server.http.negotiation import NotAcceptable, Transport, parse_accept
from turnwire.server.turns.door import kind_of

TRANSCRIPT_HEADER: Final = "x-ag-messages-transcript"
SESSION_CONTROL_HEADER: Final = "x-ag-session-control"
FLAGS: Final = ("stream", "trim", "force", "resolve", "detached")
_LOC: Final = ("body", "flags")


@dataclass(frozen=True, slots=True)
class Controls:
    stream: bool | None = None
    """``None``: ``Accept`` decides."""
    trim: bool = False
    detached: bool | None = None
    """``None``: ``x-ag-on-disconnect`` (or the server's setting) decides."""
    force: bool = False


def read_controls(body: Mapping[str, Any], headers: Mapping[str, str]) -> Controls:
    """The body's ``flags`` (an object or ``null``; each known flag a boolean or ``null``: 422
    naming it otherwise; unknown keys ignored), filled from the headers where the body names none."""
    raw = body.get("flags")
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise RequestError.at(422, f"expected an object, got {kind_of(raw)}", _LOC, "object_type")
    for name in FLAGS:
        value = raw.get(name)
        if value is not None and not isinstance(value, bool):
            msg = f"expected a boolean, got {kind_of(value)}"
            raise RequestError.at(422, msg, (*_LOC, name), "bool_type")
    trim = raw["trim"] if "trim" in raw else _transcript(headers.get(TRANSCRIPT_HEADER))
    force = raw["force"] if "force" in raw else _session_control(headers.get(SESSION_CONTROL_HEADER))
    return Controls(
        stream=bool(raw["stream"]) if "stream" in raw else None,
        trim=bool(trim),
        detached=bool(raw["detached"]) if raw.get("detached") is not None else None,
        force=bool(force),
    )


def _transcript(value: str | None) -> bool:
    """``last`` trims, ``full`` does not; anything else is unset (the reference ignores it too)."""
    return (value or "").strip().lower() == "last"


def _session_control(value: str | None) -> bool:
    return (value or "").strip().lower() == "force"


def stream_transport(negotiated: Transport, accept: str | None, stream: bool | None) -> Transport:
    """The transport once ``flags.stream`` is heard: see the module docstring."""
    if stream is None:
        return negotiated
    if stream:
        if negotiated is not Transport.JSON:
            return negotiated
        if accept is not None and _names_json(accept):
            raise NotAcceptable(accept)
        return Transport.NDJSON
    if negotiated is Transport.JSON:
        return negotiated
    assert accept is not None  # a stream was negotiated from it
    raise NotAcceptable(accept)


def _names_json(accept: str) -> bool:
    """Whether ``accept`` asks for ``application/json`` by name (not by a wildcard)."""
    return any(r.type == "application" and r.subtype == "json" and r.q > 0 for r in parse_accept(accept))


def trim_to_trailing_unit(messages: Sequence[Any]) -> list[Any]:
    """A turn's messages cut to their trailing unit, as Agenta's ``trim_to_trailing_unit``: none
    for none; the last message when it is not a ``tool`` message; else the trailing run of
    ``tool`` messages (calls and results are both ``role: tool`` in the Agenta format) and the
    one message before it that opened it, if any. Other formats' messages follow the same rule
    (a ``tool`` role is a tool result there; the message before the run is its call's)."""
    if not messages:
        return []
    start = len(messages) - 1
    if not _is_tool(messages[start]):
        return [messages[start]]
    while start > 0 and _is_tool(messages[start - 1]):
        start -= 1
    return list(messages[max(start - 1, 0) :])


def _is_tool(message: Any) -> bool:
    return isinstance(message, dict) and message.get("role") == "tool"
