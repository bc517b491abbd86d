"""Streamed Agentex contents built from their deltas in linear time, and JSON values copied fast."""

from __future__ import annotations

from typing import Any, Final


def apply_delta(content: dict[str, Any], delta: dict[str, Any]) -> None:
    """Add one TaskMessageDelta to an accumulated content (in place). Each call copies the text it
    extends: for a stream of deltas use ``Accumulator``, which is linear in the message's length."""
    acc = Accumulator(content)
    acc.add(delta)
    acc.settle()


class Accumulator:
    """A streamed content and the delta pieces not yet joined into it.

    ``add`` only appends a piece to a list; ``settle`` joins the pieces into ``content`` (at a
    flush or when the message ends), so a message of n deltas costs O(n) however long it grows —
    ``text += delta`` on a string another object also holds copies it every time (O(n²)).
    """

    __slots__ = ("content", "pieces")

    def __init__(self, content: dict[str, Any]) -> None:
        self.content = content
        self.pieces: dict[tuple[str, int], list[str]] = {}

    def add(self, delta: dict[str, Any]) -> bool:
        """Queue one TaskMessageDelta; ``False`` if it changes nothing this content holds."""
        kind = delta.get("type")
        if kind == "text":
            key, text = ("content", -1), delta.get("text_delta")
        elif kind == "reasoning_content":
            key, text = ("content", delta.get("content_index") or 0), delta.get("content_delta")
        elif kind == "reasoning_summary":
            key, text = ("summary", delta.get("summary_index") or 0), delta.get("summary_delta")
        else:
            return False
        if not text:
            return False
        pieces = self.pieces.get(key)
        if pieces is None:
            self.pieces[key] = [text]
        else:
            pieces.append(text)
        return True

    def settle(self) -> dict[str, Any]:
        """Join the queued pieces into ``content``; returns it."""
        if not self.pieces:
            return self.content
        content = self.content
        for (key, index), pieces in self.pieces.items():
            if index < 0:
                content[key] = (content.get(key) or "") + "".join(pieces)
                continue
            parts = list(content.get(key) or [])
            while len(parts) <= index:
                parts.append("")
            parts[index] += "".join(pieces)
            content[key] = parts
        self.pieces = {}
        return content


def copied(value: Any) -> Any:
    """A deep copy of a JSON value (dicts, lists, scalars): ``copy.deepcopy`` without its memo,
    several times faster on the small contents every streamed message starts with."""
    kind = type(value)
    if kind is dict:
        return {k: copied(v) if type(v) in _CONTAINERS else v for k, v in value.items()}
    if kind is list:
        return [copied(v) if type(v) in _CONTAINERS else v for v in value]
    return value


_CONTAINERS: Final = frozenset((dict, list))
