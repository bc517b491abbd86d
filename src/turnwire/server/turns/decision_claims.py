"""One-shot decisions: an approval token answers its tool call once, across requests and workers.

The turn pipeline claims, in the store, every decision a turn is about to act on (a decision whose
call has no result in the history yet, or one the client sends right now) before the agent runs.
The first request to claim a token is the one whose agent runs the tool. A later request carrying
the same decision does not run it again:

- its result is in the stored conversation: the history the agent sees gets that result after the
  decision (agents resume from history, so the call reads as done), and the turn replays it first
  (same tool output, no second run);
- the result is not stored yet (the first request is still running it): 409 ``decision_in_progress``;
  once the conversation has moved on (a user message after the decision), the call reads as not run
  (an error result in the agent's history), so a turn whose client left never blocks the session;
- the decision contradicts the recorded one (a token used to deny, re-sent approved, or the
  reverse): 409 ``decision_already_answered``. The first answer holds.

A turn that holds claims settles them when it ends (``SettlingRun``): calls it ran are final; calls
it did not run (the agent still waits on another gate) are released, so the request that answers
the other gate takes them over and runs them — once. A turn that fails or is cancelled keeps its
claims: whether its tool ran is unknown, and a call runs at most once.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from turnwire.conversations.planning import to_messages
from turnwire.model import Done, Event, Message, Role, StopReason, ToolResult, ToolResultBlock
from turnwire.runtime import Agent, TurnContext
from turnwire.runtime.runner import EventRun
from turnwire.runtime.transcript import Decision
from turnwire.server.http.errors import RequestError
from turnwire.store.base import Claim, Store

log = logging.getLogger("turnwire.server.decisions")


@dataclass(slots=True)
class Claimed:
    """The history a turn runs on after its claims, and the recorded results it replays first."""

    history: list[Message]
    replay: list[ToolResult] = field(default_factory=list)
    held: dict[str, str] = field(default_factory=dict)
    """Call id -> token digest of the decisions this turn holds (it may run those calls)."""

    def settling(self, run: EventRun, store: Store, task_id: str) -> EventRun:
        """``run``, settling this turn's claims when it ends (``run`` itself when it holds none)."""
        return SettlingRun(run, store, task_id, self.held) if self.held else run

    def agent(self, agent: Agent) -> Agent:
        """``agent``, replaying the recorded results before its own events when there are any."""
        if not self.replay:
            return agent
        replay = list(self.replay)

        def replaying(ctx: TurnContext) -> AsyncIterator[Event]:
            return _replaying(agent, ctx, replay)

        return replaying


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _is_decision(block: ToolResultBlock) -> bool:
    output = block.output
    return isinstance(output, dict) and isinstance(output.get("approved"), bool)


def _answered(messages: Sequence[Message]) -> dict[str, ToolResultBlock]:
    """Call id -> its first real result (a tool result that is not a decision)."""
    out: dict[str, ToolResultBlock] = {}
    for message in messages:
        for block in message.content:
            if isinstance(block, ToolResultBlock) and block.id and not _is_decision(block):
                out.setdefault(block.id, block)
    return out


def _trailing(messages: Sequence[Message]) -> int:
    """Index of the first message of the history's trailing tool messages (what the client sends
    now when it answers a paused turn)."""
    start = len(messages)
    while start > 0 and messages[start - 1].role == Role.TOOL:
        start -= 1
    return start


async def claim_decisions(
    store: Store,
    task_id: str,
    history: list[Message],
    found: Mapping[str, Decision],
    stored: Sequence[dict[str, Any]],
    loc: tuple[str | int, ...],
) -> Claimed:
    """Claim the decisions of ``history`` (checked ones, ``found``) for ``task_id``; ``stored`` is
    the task's conversation as read when the turn started. Raises ``RequestError`` (409)."""
    if not found:
        return Claimed(history)
    answered = _answered(history)
    trailing = _trailing(history)
    acting = {
        call_id: decision
        for call_id, decision in found.items()
        if decision.interaction_token is not None and (call_id not in answered or decision.index >= trailing)
    }
    if not acting:
        return Claimed(history)
    claims = [
        Claim(token_digest(d.interaction_token or ""), call_id, d.approved) for call_id, d in acting.items()
    ]
    recorded = await store.claim_decisions(task_id, claims)
    replays: list[tuple[Decision, ToolResultBlock]] = []
    stored_results: dict[str, ToolResultBlock] | None = None
    holding: dict[str, str] = {}
    stale: list[tuple[Decision, ToolResultBlock]] = []
    for claim in claims:
        held = recorded[claim.token_digest]
        if held.first:
            holding[claim.tool_call_id] = claim.token_digest
            continue
        decision = acting[claim.tool_call_id]
        where = (*loc, decision.index)
        log.info(
            "task %s: the decision for tool call %r was recorded before (%s); this request sent %s",
            task_id,
            claim.tool_call_id,
            "approved" if held.approved else "denied",
            "approved" if claim.approved else "denied",
        )
        if held.approved != claim.approved:
            answer = "approved" if held.approved else "denied"
            raise RequestError.at(
                409,
                f"tool call {claim.tool_call_id!r} was already {answer} with this approval token; "
                "a decision is final",
                where,
                "decision_already_answered",
            )
        if claim.tool_call_id in answered:
            continue  # the history already holds the result: the agent will not run the call
        if stored_results is None:
            stored_results = _answered(to_messages(stored))
        result = stored_results.get(claim.tool_call_id)
        if result is None and _user_after(history, decision.index):
            # The conversation moved on past a call whose turn never finished (its client left, its
            # process died): the call is shown as not run, so no agent runs it now.
            stale.append((decision, _not_run(claim.tool_call_id, decision.tool_name)))
            continue
        if result is None:
            raise RequestError.at(
                409,
                f"the decision for tool call {claim.tool_call_id!r} was already sent by another request "
                "whose result is not recorded yet; retry shortly to get that result",
                where,
                "decision_in_progress",
            )
        replays.append((decision, result))
    if not replays and not stale:
        return Claimed(history, held=holding)
    history = list(history)
    # Each recorded result goes right after the message holding its decision (last first, so the
    # earlier positions stay put), where the first request's history had it.
    for decision, result in sorted([*replays, *stale], key=lambda r: r[0].index, reverse=True):
        history.insert(decision.index + 1, Message(Role.TOOL, [result]))
    replay = [
        ToolResult(id=r.id, name=r.name, output=r.output, is_error=r.is_error)
        for _, r in sorted(replays, key=lambda r: r[0].index)
    ]
    return Claimed(history, replay, holding)


NOT_RUN = "Not run: the turn that held this approval ended before the tool's result was recorded."


def _not_run(call_id: str, tool_name: str | None) -> ToolResultBlock:
    return ToolResultBlock(id=call_id, name=tool_name, output=NOT_RUN, is_error=True)


def _user_after(history: Sequence[Message], index: int) -> bool:
    return any(m.role == Role.USER for m in history[index + 1 :])


class SettlingRun:
    """A running turn, unchanged, that settles the claims it holds once its final event passes."""

    __slots__ = ("_held", "_ran", "_run", "_settled", "_store", "_task_id")

    def __init__(self, run: EventRun, store: Store, task_id: str, held: dict[str, str]) -> None:
        self._run = run
        self._store = store
        self._task_id = task_id
        self._held = held
        self._ran: set[str] = set()
        self._settled = False

    @property
    def stop_reason(self) -> str | None:
        return self._run.stop_reason

    def __aiter__(self) -> SettlingRun:
        return self

    def __anext__(self) -> Any:
        return self.pull(None)

    async def pull(self, timeout: float | None) -> Event | None:
        event = await self._run.pull(timeout)
        kind = type(event)
        if kind is ToolResult:
            call_id = event.id
            if call_id in self._held:
                self._ran.add(call_id)
        elif kind is Done:
            await self._settle(event.stop_reason)
        return event

    async def aclose(self) -> None:
        await self._run.aclose()

    def cancel(self) -> None:
        """Stop the turn (``TurnRun.cancel``): it ends with ``stop_reason: cancelled``."""
        cancel = getattr(self._run, "cancel", None)
        if cancel is not None:
            cancel()

    async def _settle(self, stop_reason: str | None) -> None:
        if self._settled:
            return
        self._settled = True
        done = [digest for call_id, digest in self._held.items() if call_id in self._ran]
        unsure = stop_reason in (StopReason.ERROR, StopReason.CANCELLED)
        released = [] if unsure else [d for c, d in self._held.items() if c not in self._ran]
        try:
            await self._store.settle_decisions(self._task_id, done, released)
        except Exception:  # the turn's answer must not fail for it: the claims stay held (at most once)
            log.exception("task %s: could not settle the decisions of a turn", self._task_id)


async def _replaying(agent: Agent, ctx: TurnContext, replay: list[ToolResult]) -> AsyncIterator[Event]:
    for result in replay:
        yield result
    inner: Any = agent(ctx)
    asend = getattr(inner, "asend", None)
    sent: Any = None
    try:
        while True:
            try:
                # A warm resume sends the next context into the agent's ``yield``: pass it on.
                event = await (asend(sent) if asend is not None else inner.__anext__())
            except StopAsyncIteration:
                return
            sent = yield event
    finally:
        close = getattr(inner, "aclose", None)
        if close is not None:
            await close()
