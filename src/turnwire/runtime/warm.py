"""Warm sessions: a paused agent stays parked in memory and picks up where it stopped.

An agent parks by yielding ``Done(stop_reason="paused")`` after an interaction request; the
generator is then kept, suspended at that ``yield``, instead of being closed. When the client answers,
the runner sends the new ``TurnContext`` into that ``yield`` (``ctx = yield Done(...)``) and the agent
goes on. Whether it may: the history must be the one the paused turn left behind (same
fingerprint) and must answer one of its gates; anything else evicts the entry and the turn runs
cold from the full history. Correctness never depends on the pool: a cold replay gives the same
turn, which is also what happens after a restart or an eviction.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

import orjson

from turnwire.interactions import tool_call_id_of
from turnwire.model import (
    Done,
    Event,
    InteractionKind,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    Role,
    StopReason,
    TextBlock,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime.approvals import ApprovalSigner
from turnwire.runtime.context import Agent, TurnContext
from turnwire.runtime.ids import IdScope
from turnwire.runtime.runner import TurnRun, run_turn
from turnwire.runtime.transcript import decisions

logger = logging.getLogger("turnwire.runtime")

DEFAULT_POOL_MAX: Final = 64
DEFAULT_IDLE_TTL: Final = 60.0
DEFAULT_WAITING_TTL: Final = 600.0

_PLAIN_EVENTS: Final = frozenset(
    {MessageStart, MessageDelta, MessageEnd, ThoughtStart, ThoughtDelta, ThoughtEnd, Usage}
)
"""Event classes ``_drive`` passes on untouched: no id to scope, no request to sign, no call to note,
not a ``Done``."""

PoolKey = tuple[str, str]
"""(agent name, session id)."""


def history_fingerprint(messages: Sequence[Message]) -> str:
    """SHA-256 of the history's ordered tool-call ids and user texts, a trailing user message left out.

    Ids come from tool-call and tool-result blocks, first sighting wins. Assistant text is not
    hashed: clients re-render it freely, while ids and what the user said are stable.
    """
    if messages and messages[-1].role == Role.USER:
        messages = messages[:-1]
    ids: dict[str, None] = {}
    texts: list[str] = []
    for message in messages:
        if message.role == Role.USER:
            texts.append("".join(b.text for b in message.content if isinstance(b, TextBlock)))
        for block in message.content:
            if isinstance(block, ToolCallBlock | ToolResultBlock) and block.id:
                ids.setdefault(block.id, None)
    raw = orjson.dumps({"toolCallIds": list(ids), "userTexts": texts})
    return hashlib.sha256(raw).hexdigest()


@dataclass(slots=True, eq=False)
class Parked:
    """One suspended agent and what a resume must bring to wake it.

    ``approvals`` / ``client_tools``: call ids awaiting a decision / a client's output;
    ``user_input``: waiting for the next user message. Waiting on a call makes the entry ``waiting``
    (long TTL, never LRU-evicted); waiting for user input is an ordinary next turn (idle).
    """

    agent: Agent
    agen: Any
    fingerprint: str
    approvals: frozenset[str] = frozenset()
    client_tools: frozenset[str] = frozenset()
    user_input: bool = False
    expires: float = 0.0
    scope: IdScope | None = None
    """The agent's call id renames so far (``ids.IdScope``): its resumed events keep them."""

    @property
    def waiting(self) -> bool:
        return bool(self.approvals or self.client_tools)

    def answered_by(self, messages: Sequence[Message]) -> bool:
        """Whether ``messages`` answer at least one gate (others may stay open and be asked again)."""
        if self.approvals and self.approvals & decisions(messages).keys():
            return True
        if self.client_tools:
            for message in messages:
                for block in message.content:
                    if isinstance(block, ToolResultBlock) and block.id in self.client_tools:
                        return True
        return self.user_input and bool(messages) and messages[-1].role == Role.USER


class WarmPool:
    """Bounded store of parked agents: TTLs per entry, LRU eviction of idle entries only.

    ``park`` refuses (returns ``False``) when the pool is full of entries waiting on a decision: a
    turn that is not parked simply resumes cold. Not thread-safe; use it from one event loop.
    """

    def __init__(
        self,
        max_entries: int = DEFAULT_POOL_MAX,
        idle_ttl: float = DEFAULT_IDLE_TTL,
        waiting_ttl: float = DEFAULT_WAITING_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.max_entries = max_entries
        self.idle_ttl = idle_ttl
        self.waiting_ttl = waiting_ttl
        self.clock = clock
        self._entries: OrderedDict[PoolKey, Parked] = OrderedDict()
        self._closing: set[asyncio.Task[None]] = set()
        self._next_expiry = math.inf
        """No entry expires before this: a sweep before then finds nothing (every request sweeps)."""

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def park(self, key: PoolKey, entry: Parked) -> bool:
        """Keep ``entry`` under ``key`` (replacing an older one); ``False`` if there is no room."""
        self._sweep()
        old = self._entries.pop(key, None)
        if old is not None:
            self.discard(old)
        if self.max_entries <= 0:
            return False
        if len(self._entries) >= self.max_entries:
            idle = next((k for k, e in self._entries.items() if not e.waiting), None)
            if idle is None:
                return False
            self.discard(self._entries.pop(idle))
        entry.expires = self.clock() + (self.waiting_ttl if entry.waiting else self.idle_ttl)
        self._entries[key] = entry
        self._next_expiry = min(self._next_expiry, entry.expires)
        return True

    def checkout(self, key: PoolKey) -> Parked | None:
        """Remove and return the live entry under ``key``: a gate is answered at most once."""
        self._sweep()
        return self._entries.pop(key, None)

    def discard(self, entry: Parked) -> None:
        """Close ``entry``'s agent (its ``finally`` blocks run) in the background."""
        agen = entry.agen
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop: the generator is finalized when collected
        task = loop.create_task(_close(agen))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def clear(self) -> None:
        """Evict every entry."""
        while self._entries:
            self.discard(self._entries.popitem(last=False)[1])

    def _sweep(self) -> None:
        now = self.clock()
        if now < self._next_expiry:
            return
        for key in [k for k, e in self._entries.items() if e.expires <= now]:
            self.discard(self._entries.pop(key))
        self._next_expiry = min((e.expires for e in self._entries.values()), default=math.inf)


async def _close(agen: Any) -> None:
    try:
        await agen.aclose()
    except BaseException:  # an agent failing while it is closed must not break anything else
        logger.warning("a parked agent failed while it was closed", exc_info=True)


class WarmStarts:
    """Starts turns: signs approval requests, resumes parked agents, parks paused ones.

    ``hits`` / ``misses`` count resumes that found / discarded a parked agent; ``cold_fallbacks``
    counts parked agents that had nothing to say on resume and were replayed cold.
    """

    def __init__(self, signer: ApprovalSigner, pool: WarmPool | None = None) -> None:
        self.signer = signer
        self.pool = pool if pool is not None else WarmPool()
        self.hits = 0
        self.misses = 0
        self.cold_fallbacks = 0

    def start(
        self, agent_name: str, agent: Agent, ctx: TurnContext, *, session_key: str | None = None
    ) -> TurnRun:
        """Run one turn of ``agent`` for ``ctx`` (see ``run_turn``), warm when the pool allows.

        ``session_key`` (default: the session id) keys the parked agent and signs approval tokens;
        a server with several tenants makes it the session id within its tenant."""
        session = ctx.session_id if session_key is None else session_key
        key = (agent_name, session) if ctx.session_id else None
        parked = self._claim(key, agent, ctx.messages)

        def gated(turn_ctx: TurnContext) -> AsyncIterator[Event]:
            return self._drive(key, agent, parked, turn_ctx, session)

        return run_turn(gated, ctx)

    def forget(self, agent_name: str, session_id: str) -> None:
        """Evict the session's parked agent, if any (e.g. when the client regenerates)."""
        entry = self.pool.checkout((agent_name, session_id))
        if entry is not None:
            self.pool.discard(entry)

    def _claim(self, key: PoolKey | None, agent: Agent, messages: Sequence[Message]) -> Parked | None:
        if key is None:
            return None
        entry = self.pool.checkout(key)
        if entry is None:
            return None
        if (
            entry.agent is not agent
            or entry.fingerprint != history_fingerprint(messages)
            or not entry.answered_by(messages)
        ):
            self.misses += 1
            self.pool.discard(entry)
            return None
        self.hits += 1
        return entry

    async def _drive(
        self, key: PoolKey | None, agent: Agent, parked: Parked | None, ctx: TurnContext, session: str
    ) -> AsyncIterator[Event]:
        source: Any = parked.agen if parked is not None else agent(ctx)
        send: Any = ctx if parked is not None else None
        resumed = parked is not None
        scope = parked.scope if parked is not None and parked.scope is not None else None
        if scope is None:
            scope = IdScope(ctx.messages)
        else:
            scope.refresh(ctx.messages)
        produced = False
        calls: list[str] = []
        requests: list[InteractionRequest] = []
        plain = _PLAIN_EVENTS
        try:
            while True:
                # Bound once per source, not looked up per event.
                asend = getattr(source, "asend", None)
                step = source.__anext__
                while True:
                    try:
                        event: Event = await (step() if asend is None else asend(send))
                    except StopAsyncIteration:
                        break
                    send = None
                    produced = True
                    if event.__class__ in plain:  # most events: nothing to scope, sign, note or park
                        yield event
                        continue
                    scoped = scope.apply(event)
                    if scoped is None:
                        continue
                    event = scoped
                    if isinstance(event, InteractionRequest):
                        event = self.signer.sign_request(event, session)
                        requests.append(event)
                    elif isinstance(event, ToolCall) and event.id:
                        calls.append(event.id)
                    yield event
                    if (
                        isinstance(event, Done)
                        and event.stop_reason == StopReason.PAUSED
                        and requests
                        and key is not None
                        and asend is not None
                    ):
                        if self._park(key, agent, source, ctx.messages, calls, requests, scope):
                            source = None
                        return
                if resumed and not produced:
                    # The parked agent ends without a word: it was written for cold resume only.
                    self.cold_fallbacks += 1
                    resumed = False
                    source, send = agent(ctx), None
                    scope = IdScope(ctx.messages)
                    continue
                return
        finally:
            if source is not None:
                await _close(source)

    def _park(
        self,
        key: PoolKey,
        agent: Agent,
        agen: Any,
        history: Sequence[Message],
        calls: list[str],
        requests: list[InteractionRequest],
        scope: IdScope | None = None,
    ) -> bool:
        approvals: set[str] = set()
        client_tools: set[str] = set()
        user_input = False
        for request in requests:
            call_id = tool_call_id_of(request)
            if request.kind == InteractionKind.USER_INPUT:
                user_input = True
            elif call_id is None:
                continue
            elif request.kind == InteractionKind.USER_APPROVAL:
                approvals.add(call_id)
            elif request.kind == InteractionKind.CLIENT_TOOL:
                client_tools.add(call_id)
            if call_id is not None:
                calls.append(call_id)
        if not (approvals or client_tools or user_input):
            return False
        # What the next request's history must look like: this one plus the calls this turn made.
        after = [*history, Message(role=Role.ASSISTANT, content=[ToolCallBlock(id=c) for c in calls])]
        entry = Parked(
            agent=agent,
            agen=agen,
            fingerprint=history_fingerprint(after),
            approvals=frozenset(approvals),
            client_tools=frozenset(client_tools),
            user_input=user_input,
            scope=scope,
        )
        return self.pool.park(key, entry)
