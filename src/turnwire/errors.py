"""turnwire's documented errors. Parsers raise only ``InputError`` on bad input."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Loc = tuple[str | int, ...]


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
