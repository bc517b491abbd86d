"""Cursors of ``GET /messages/paginated``: the position itself, not a message id.

A cursor is urlsafe base64 of ``{"v":2,"task":…,"t":created_at,"s":seq}``. Because it carries the
position, a deleted message never breaks a walk; anything undecodable is an ``InputError``.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass

import orjson

from turnwire.errors import InputError

_INT64 = -(2**63)


@dataclass(frozen=True, slots=True)
class Position:
    """Where a message sits in its task's order: ``(created_at, seq)``."""

    created_at: int
    seq: int


def encode_cursor(task_id: str, pos: Position) -> str:
    raw = orjson.dumps({"v": 2, "task": task_id, "t": pos.created_at, "s": pos.seq})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(task_id: str, cursor: str) -> Position:
    """The position in ``cursor``; ``InputError`` if it is garbage or belongs to another task."""
    loc = ("query", "cursor")
    try:
        data = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        raise InputError("invalid cursor", loc=loc) from None
    if not isinstance(data, dict) or data.get("v") != 2:
        raise InputError("invalid cursor", loc=loc)
    t, s = data.get("t"), data.get("s")
    if type(t) is not int or type(s) is not int or not (_INT64 <= t < -_INT64 and _INT64 <= s < -_INT64):
        raise InputError("invalid cursor", loc=loc)  # also numbers no database column holds
    if data.get("task") != task_id:
        raise InputError("cursor belongs to another task", loc=loc)
    return Position(t, s)
