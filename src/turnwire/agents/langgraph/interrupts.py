"""``interrupt()`` payloads as turnwire interactions, and the user's answers as resume values.

Two payload shapes ask to approve tool calls:

- ``{"tool_call": {"name", "args", "id"?}}`` (turnwire's): resumed with ``{"approved": bool}``
  (and ``"message"`` when denied);
- ``{"action_requests": [{"name", "args"}...]}`` (LangChain's ``HumanInTheLoopMiddleware``):
  resumed with ``{"decisions": [{"type": "approve"} | {"type": "reject", "message"}...]}``.

Any other payload is a question (``user_input``) showing the payload; the next user message is
the answer, resumed as its text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from turnwire.agents.chat_history import DENIED_TEXT
from turnwire.model import InteractionKind, InteractionRequest, ToolCall, ToolCallBlock
from turnwire.runtime import Decision


@dataclass(frozen=True, slots=True)
class Pending:
    """One pending interrupt: its LangGraph id, payload, and the calls it asks to approve (empty:
    a question)."""

    interrupt_id: str
    value: Any
    calls: tuple[ToolCall, ...]
    shape: str  # "tool_call" | "action_requests" | "question"

    def question(self) -> InteractionRequest:
        value = self.value
        prompt = value if isinstance(value, str) else _prompt_of(value)
        return InteractionRequest(
            id=f"input_{self.interrupt_id}",
            kind=InteractionKind.USER_INPUT,
            payload={"prompt": prompt, "interrupt": _jsonable(value)},
        )

    def resume_value(self, decided: Mapping[str, Decision]) -> Any:
        """The value ``interrupt()`` returns for the decisions (all calls decided)."""
        if self.shape == "tool_call":
            decision = decided[self.calls[0].id or ""]
            return {"approved": True} if decision.approved else {"approved": False, "message": DENIED_TEXT}
        return {
            "decisions": [
                {"type": "approve"}
                if decided[c.id or ""].approved
                else {"type": "reject", "message": DENIED_TEXT}
                for c in self.calls
            ]
        }


def pending(interrupt: Any, candidates: Sequence[ToolCall | ToolCallBlock]) -> Pending:
    """``interrupt`` (a ``langgraph.types.Interrupt``) read; ``candidates``: calls on the wire without
    a result, newest last, to find the call a payload without ids asks about."""
    interrupt_id = str(getattr(interrupt, "id", "") or "0")
    value = getattr(interrupt, "value", interrupt)
    if isinstance(value, dict) and isinstance(value.get("tool_call"), dict):
        asked = value["tool_call"]
        call = _match(asked, candidates, f"interrupt_{interrupt_id}")
        return Pending(interrupt_id, value, (call,), "tool_call")
    if isinstance(value, dict) and isinstance(value.get("action_requests"), list):
        calls = tuple(
            _match(asked, candidates, f"interrupt_{interrupt_id}_{n}")
            for n, asked in enumerate(value["action_requests"])
            if isinstance(asked, dict)
        )
        if calls:
            return Pending(interrupt_id, value, calls, "action_requests")
    return Pending(interrupt_id, value, (), "question")


def _match(asked: dict[str, Any], candidates: Sequence[ToolCall | ToolCallBlock], fallback: str) -> ToolCall:
    name = asked.get("name")
    args = asked.get("args", asked.get("arguments"))
    given = asked.get("id")
    if isinstance(given, str) and given:
        return ToolCall(id=given, name=name, input=args)
    for call in reversed(candidates):
        if call.name == name and (args is None or call.input == args):
            return ToolCall(id=call.id, name=call.name, input=call.input)
    return ToolCall(id=fallback, name=name, input=args)


def _prompt_of(value: Any) -> str:
    if isinstance(value, dict):
        for key in ("question", "prompt", "message", "text"):
            if isinstance(value.get(key), str):
                return value[key]
    return orjson.dumps(_jsonable(value)).decode()


def _jsonable(value: Any) -> Any:
    return orjson.loads(orjson.dumps(value, default=str))
