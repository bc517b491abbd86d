"""turnwire's documented errors. Parsers raise only ``InputError`` on bad input."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

Loc = tuple[str | int, ...]

MAX_ERROR_CHARS: Final = 2000

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


_PRIVATE_MODULES: Final = ("sqlalchemy", "asyncpg", "sqlite3", "aiosqlite", "psycopg", "redis")
"""Exceptions of these packages carry SQL, connection details or file paths: never shown."""


def failure_message(exc: BaseException) -> str:
    """``"Agent run failed: <first non-empty line of the exception>"``, without stack frames or
    control characters, at most 2000 characters; the exception's class name if it has no text.
    A database or Redis error says only that (its text may hold SQL, a URL or a path); the
    runner logs the whole exception."""
    if type(exc).__module__.split(".")[0] in _PRIVATE_MODULES:
        return "Agent run failed: a database error (logged on the server)"
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not break the error path
        text = ""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    line = _CONTROL.sub("", line).replace("\t", " ") or type(exc).__name__
    message = "Agent run failed: " + line
    if len(message) > MAX_ERROR_CHARS:
        message = message[: MAX_ERROR_CHARS - 1] + "…"
    return message


class TurnwireError(Exception):
    """Base of every error turnwire raises on purpose."""


class InputError(TurnwireError, ValueError):
    """Input that cannot be accepted. ``loc`` names where, e.g. ``("messages", 3, "content")``.

    The server answers it with a 4xx JSON body ``{"detail": [{"loc", "msg", "type"}]}``.
    """

    def __init__(self, msg: str, *, loc: Sequence[str | int] = (), type: str = "invalid") -> None:
        self.msg = msg
        self.loc: Loc = tuple(loc)
        self.type = type
        super().__init__(f"{self.where}: {msg}" if self.loc else msg)

    @property
    def where(self) -> str:
        """``loc`` as a readable path: ``messages[3].content``."""
        out = ""
        for part in self.loc:
            out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"loc": list(self.loc), "msg": self.msg, "type": self.type}


class UnknownFormatError(TurnwireError, LookupError):
    def __init__(self, name: str, known: Sequence[str]) -> None:
        self.name = name
        self.known = list(known)
        super().__init__(f"unknown format {name!r}; known formats: {', '.join(self.known)}")
