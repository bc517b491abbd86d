"""The registry of wire formats.

A format is one module in this package that defines ``FORMAT = WireFormat(...)``. Modules are
discovered on first use, so adding a format means adding one module and nothing else.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from turnwire.errors import UnknownFormatError
from turnwire.model import Message


@dataclass(frozen=True, slots=True)
class WireFormat:
    """What the conversion registry needs from a format: messages in, messages out."""

    name: str
    parse_messages: Callable[[Any], list[Message]]
    """Wire messages (a JSON array, already decoded) -> canonical messages. Raises InputError."""
    render_messages: Callable[[Sequence[Message]], list[dict[str, Any]]]
    """Canonical messages -> wire messages (JSON-ready dicts)."""
    description: str = ""


_registry: dict[str, WireFormat] = {}
_discovered = False


def register(fmt: WireFormat) -> WireFormat:
    _registry[fmt.name] = fmt
    return fmt


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if isinstance(fmt, WireFormat):
            register(fmt)


def get_format(name: str) -> WireFormat:
    _discover()
    try:
        return _registry[name.strip().lower()]
    except KeyError:
        raise UnknownFormatError(name, names()) from None


def names() -> list[str]:
    _discover()
    return sorted(_registry)
