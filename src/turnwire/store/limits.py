"""Bounds on what the store accepts, so that hostile input is refused (``InputError`` naming the
field) before it reaches a database that would fail on it.

- Timestamps: ``MIN_TIME`` .. ``MAX_TIME`` (1970 to the start of 9999). The store adds a few
  microseconds to stamps it derives (a batch's spacing, ``updated_at`` advancing), so a stamp at
  the very end of ``datetime``'s range would break every later write of its task.
- Pages: ``limit`` ≤ ``MAX_LIMIT``, ``page_number`` ≤ ``MAX_PAGE_NUMBER`` (the offset stays far
  inside a signed 64-bit integer on both databases).
- Ids and names: at most ``MAX_ID_CHARS`` characters, no NUL.
- NUL (``\\u0000``): PostgreSQL holds it neither in ``text`` nor in ``jsonb``. Contents, params and
  metadata are stored as JSON *text*, where a NUL is the escape ``\\u0000``: stored and returned
  exactly on both databases (the JSONB casts of filters read it as U+FFFD). Ids, names and filter
  keys/values are plain text or JSONB: a NUL there is refused on both databases.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any, Final

from turnwire.errors import InputError, Loc

MIN_TIME: Final = datetime(1970, 1, 1, tzinfo=UTC)
MAX_TIME: Final = datetime(9999, 1, 1, tzinfo=UTC)
"""Timestamps a client may give are in ``[MIN_TIME, MAX_TIME)``."""

MAX_LIMIT: Final = 1000
"""Most rows one list request may ask for."""
MAX_PAGE_NUMBER: Final = 1_000_000_000
"""Highest ``page_number`` of a list."""
INT64_MAX: Final = 2**63 - 1
MAX_ID_CHARS: Final = 255
"""Longest task id, task name or message id the store looks up or stores."""

MAX_FILTERS: Final = 100
"""Most filters in one ``filters`` query value."""
MAX_FILTER_DEPTH: Final = 32
"""Deepest nesting of a filter's partial content."""
MAX_FILTER_PATHS: Final = 200
"""Most path equalities in one ``filters`` value, all filters together (SQLite refuses an
expression more than 1000 deep, and a long ``AND``/``OR`` chain is one level per term)."""
NO_NUL: Final = "^[^\\x00]*$"
"""A regular expression matching text without NUL (for OpenAPI parameter patterns)."""


def check_id(value: str, loc: Loc, what: str = "id") -> str:
    """``value`` if it is a usable id or name: not over-long and without NUL; else ``InputError``."""
    if len(value) > MAX_ID_CHARS:
        raise InputError(f"{what} is longer than {MAX_ID_CHARS} characters", loc=loc, type="too_long")
    if "\x00" in value:
        raise InputError(f"{what} must not contain NUL (\\u0000)", loc=loc, type="nul_character")
    return value


def _nul_paths(value: Any, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Where a NUL sits in a JSON value: ``(loc, "key"|"value")``; iterative, any depth."""
    todo: list[tuple[Any, Loc]] = [(value, tuple(loc))]
    while todo:
        node, at = todo.pop()
        if isinstance(node, str):
            if "\x00" in node:
                yield at, "value"
        elif isinstance(node, dict):
            for key, sub in node.items():
                if isinstance(key, str) and "\x00" in key:
                    yield at, "key"
                todo.append((sub, (*at, key)))
        elif isinstance(node, list):
            todo.extend((sub, (*at, i)) for i, sub in enumerate(node))


def check_no_nul(value: Any, loc: Loc) -> Any:
    """``value`` if no string or key in it holds a NUL character; else ``InputError`` naming where."""
    for at, part in _nul_paths(value, loc):
        raise InputError(f"a {part} here contains NUL (\\u0000)", loc=at, type="nul_character")
    return value
