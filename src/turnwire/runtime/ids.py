"""Tool call ids scoped to their conversation, whatever ids the agent picks.

Agents often number their calls per turn (``call_1`` every time). Stored as they come, the second
turn's ``call_1`` would be the first turn's call to every reader: a UIMessage history joins a call
and its result by id, so turn 1's tool part would show turn 2's input and output. The rule:

- A ``ToolCall`` whose id the history already holds for a **finished** call (one with a result)
  is a new call: it gets the id ``<id>~<n>``, ``n`` the smallest number from 2 up that no call in
  the history uses. Every later event of the agent naming its id — results, interaction requests
  (``payload.toolCallId``, ``payload.toolCall.id|toolCallId``) — names the new id, also after a
  warm resume (the scope lives with the parked agent).
- A call the history holds **without** a result (waiting for an approval or a client tool) is the
  same call continued and keeps its id; so does a call re-announced under the id the agent first
  gave it when the history holds it renamed (a cold replay of a hard-coded id).
- A ``ToolCallDelta`` (the call's arguments streaming before the ``ToolCall``) is scoped as the
  call it opens; a ``ToolProgress`` as the call's result will be.
- Within one turn, a ``ToolCall`` reusing the id of a call that already has its result in this
  turn is an error: an ``ErrorEvent`` (code ``duplicate_id``) replaces it and the call's later
  events are dropped. A repeated ``ToolCall`` before its result refreshes the arguments (allowed).

Message and thought ids are stream-local: no reader keeps them (stored messages get store ids), so
reusing them across turns needs nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Final

from turnwire.model import (
    ErrorEvent,
    Event,
    InteractionRequest,
    Message,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    ToolResultBlock,
)
from turnwire.runtime.transcript import Decision, decisions

SEPARATOR: Final = "~"
DUPLICATE_ID_CODE: Final = "duplicate_id"


def base_id(call_id: str) -> str:
    """The id an agent gave a call the runner renamed (``call_1~2`` -> ``call_1``)."""
    head, sep, tail = call_id.rpartition(SEPARATOR)
    return head if sep and tail.isdigit() and head else call_id


class IdScope:
    """The renames of one conversation's agent, turn after turn (``refresh`` on each new turn)."""

    __slots__ = ("_done_in_turn", "_dropped", "_finished", "_open", "_renamed", "_used")

    def __init__(self, history: Sequence[Message]) -> None:
        self._renamed: dict[str, str] = {}  # the agent's id -> the conversation's id
        self._done_in_turn: set[str] = set()
        self._dropped: set[str] = set()
        self._used: set[str] = set()
        self._finished: set[str] = set()
        self._open: dict[str, str] = {}  # base id -> newest open call id in the history
        self.refresh(history)

    def refresh(self, history: Sequence[Message]) -> None:
        """A new turn on ``history``: what it calls and finishes. Renames of calls still open stay
        in force (a resumed agent names them by its own id); finished ones are forgotten."""
        self._done_in_turn.clear()
        self._dropped.clear()
        used: set[str] = set()
        finished: set[str] = set()
        for message in history:
            for block in message.content:
                if isinstance(block, ToolCallBlock) and block.id:
                    used.add(block.id)
                elif isinstance(block, ToolResultBlock) and block.id:
                    finished.add(block.id)
        self._used, self._finished = used, finished
        self._open = {base_id(c): c for c in used if c not in finished}
        self._renamed = {a: c for a, c in self._renamed.items() if c not in finished}

    def _fresh(self, call_id: str) -> str:
        n = 2
        while f"{call_id}{SEPARATOR}{n}" in self._used:
            n += 1
        return f"{call_id}{SEPARATOR}{n}"

    def _known(self, call_id: str) -> str:
        """The conversation's id for an id the agent names outside a new call."""
        renamed = self._renamed.get(call_id)
        if renamed is not None:
            return renamed
        if call_id in self._used and call_id not in self._finished:
            return call_id
        return self._open.get(call_id, call_id)

    def apply(self, event: Event) -> Event | None:
        """``event`` with its call id scoped (``None``: drop it; an ``ErrorEvent`` replaces a
        colliding call)."""
        if isinstance(event, ToolCall):
            return self._call(event)
        if isinstance(event, ToolResult):
            return self._result(event)
        if isinstance(event, InteractionRequest):
            return self._request(event)
        if isinstance(event, ToolCallDelta):
            return self._call(event)  # the first delta opens the call: it is scoped as the call is
        if isinstance(event, ToolProgress):
            return self._progress(event)
        return event

    def _call(self, event: ToolCall | ToolCallDelta) -> Event | None:
        agent_id = event.id
        if not agent_id:
            return event
        if agent_id in self._dropped:
            return None
        if agent_id in self._done_in_turn:
            self._dropped.add(agent_id)
            return ErrorEvent(
                message=f"tool call id {agent_id!r} was used twice in one turn: ids must be unique "
                "within a turn (a repeated call before its result only refreshes the arguments)",
                code=DUPLICATE_ID_CODE,
            )
        scoped = self._renamed.get(agent_id)
        if scoped is None:
            scoped = self._open.get(agent_id)  # the same call, continued (maybe renamed before)
            if scoped is None:
                scoped = self._fresh(agent_id) if agent_id in self._finished else agent_id
            if scoped != agent_id:
                self._renamed[agent_id] = scoped
            self._used.add(scoped)
        return event if scoped == agent_id else replace(event, id=scoped)

    def _progress(self, event: ToolProgress) -> Event | None:
        """A running call's progress: its id as its result will have it (the call is not done)."""
        agent_id = event.id
        if agent_id in self._dropped:
            return None
        scoped = self._known(agent_id)
        return event if scoped == agent_id else replace(event, id=scoped)

    def _result(self, event: ToolResult) -> Event | None:
        agent_id = event.id
        if not agent_id:
            return event
        if agent_id in self._dropped:
            return None
        self._done_in_turn.add(agent_id)
        scoped = self._known(agent_id)
        self._finished.add(scoped)
        return event if scoped == agent_id else replace(event, id=scoped)

    def _request(self, event: InteractionRequest) -> Event:
        payload = event.payload
        if not isinstance(payload, dict):
            return event
        changed: dict[str, Any] | None = None
        call_id = payload.get("toolCallId")
        if isinstance(call_id, str) and self._known(call_id) != call_id:
            changed = {**payload, "toolCallId": self._known(call_id)}
        call = payload.get("toolCall")
        if isinstance(call, dict):
            new_call = dict(call)
            for key in ("id", "toolCallId"):
                value = call.get(key)
                if isinstance(value, str) and self._known(value) != value:
                    new_call[key] = self._known(value)
            if new_call != call:
                changed = {**(changed or payload), "toolCall": new_call}
        return event if changed is None else replace(event, payload=changed)


def scoped_decisions(history: Sequence[Message]) -> dict[str, Decision]:
    """``transcript.decisions``, plus each renamed call's decision under the agent's own id when
    that call is the newest with it (no entry there while the newest call waits for its decision)."""
    found = decisions(history)
    newest: dict[str, str] = {}
    for message in history:
        for block in message.content:
            if isinstance(block, ToolCallBlock) and block.id:
                newest[base_id(block.id)] = block.id
    for agent_id, call_id in newest.items():
        if call_id == agent_id:
            continue
        decision = found.get(call_id)
        if decision is None:
            found.pop(agent_id, None)
        else:
            found[agent_id] = decision
    return found
