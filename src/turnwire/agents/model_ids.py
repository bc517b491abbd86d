"""Tool-call ids as a model provider accepts them, and back.

The runtime renames a call whose id an earlier call of the conversation already used (``call_0~2``,
see ``turnwire.runtime.ids``), and clients send ids of their own. Model providers are strict about
the ids they read back: Anthropic, the strictest, accepts only ``^[A-Za-z0-9_-]+$`` in tool-use ids.
Every adapter sends the model ids through ``ModelIds``: a safe id goes as it is, any other gets a
safe stand-in unique in the conversation (``call_0~2`` -> ``call_0_2``), and whatever the model
names by a stand-in maps back to the exact turnwire id.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Final

SAFE_ID: Final = re.compile(r"[A-Za-z0-9_-]+")
_UNSAFE_CHAR: Final = re.compile(r"[^A-Za-z0-9_-]")


class ModelIds:
    """The id map of one turn: ``to_model`` for what the model reads, ``from_model`` for what it names."""

    __slots__ = ("_back", "_taken", "_to")

    def __init__(self, ids: Iterable[str] = ()) -> None:
        self._to: dict[str, str] = {}
        self._back: dict[str, str] = {}
        known = [i for i in ids if i]
        # Safe ids are reserved first, so a stand-in never takes the id of a real call.
        self._taken: set[str] = {i for i in known if SAFE_ID.fullmatch(i)}
        for call_id in known:
            self.to_model(call_id)

    @classmethod
    def of_chat(cls, messages: Iterable[dict[str, Any]]) -> ModelIds:
        """The map for the ids of Chat Completions messages (``chat_history.to_chat_messages``)."""
        return cls(_chat_ids(messages))

    def to_model(self, call_id: str) -> str:
        mapped = self._to.get(call_id)
        if mapped is not None:
            return mapped
        if SAFE_ID.fullmatch(call_id):
            self._taken.add(call_id)
            return call_id
        base = _UNSAFE_CHAR.sub("_", call_id) or "call"
        candidate, n = base, 2
        while candidate in self._taken:
            candidate, n = f"{base}_{n}", n + 1
        self._taken.add(candidate)
        self._to[call_id] = candidate
        self._back[candidate] = call_id
        return candidate

    def from_model(self, model_id: str) -> str:
        """The turnwire id of an id the model names (its own new ids are kept as they are)."""
        return self._back.get(model_id, model_id)

    def chat(self, messages: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
        """Copies of Chat Completions messages with every tool-call id as the model reads it."""
        out: list[dict[str, Any]] = []
        for message in messages:
            calls = message.get("tool_calls")
            if calls:
                message = {**message, "tool_calls": [{**c, "id": self.to_model(c["id"])} for c in calls]}
            call_id = message.get("tool_call_id")
            if isinstance(call_id, str):
                message = {**message, "tool_call_id": self.to_model(call_id)}
            out.append(message)
        return out


def _chat_ids(messages: Iterable[dict[str, Any]]) -> list[str]:
    ids: list[str] = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            ids.append(call["id"])
        if isinstance(message.get("tool_call_id"), str):
            ids.append(message["tool_call_id"])
    return ids
