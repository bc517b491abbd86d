"""What a turn does when its conversation is already running one (LangGraph's "multitask
strategies"; a user who types again before the answer ends, or two tabs on one chat).

- ``reject`` (the default): refused with 409 ``turn_running``, naming the running turn — in
  each door's own error shape. Nothing of the refused request is stored.
- ``interrupt``: the running turn is stopped (its client's stream ends ``cancelled``; the part
  of its reply already sent stays stored), then this turn runs after it.
- ``enqueue``: this turn waits until the running one has ended and is stored, then runs.

Either way the turn that ran second plans on the stored conversation *with* the first turn's
reply: a client that sent its whole history before that reply existed has its new messages
appended after it, never a rewind that would drop a reply another client received.

Chosen per server (``TURNWIRE_MULTITASK``, ``turnwire serve --multitask``) and per request:
the ``x-turnwire-multitask`` header, else the door's own field (``multitask_strategy`` in the
body of ``/invoke``, ``/chat`` and ``/v1/chat/completions``, in AG-UI's ``forwardedProps``, in
Agentex ``message/send`` params). A request that answers a paused turn (an approval's decision,
a client tool's result, a continuation of the paused message) is never held back here: the
decision claims (``decision_claims``) already make it one-shot, as before.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from starlette.requests import Request

from turnwire.conversations.busy import Claim, ConversationClaims
from turnwire.conversations.planning import plan_inbound
from turnwire.conversations.stored import Conversation, conversation_on_task, read_conversation
from turnwire.formats.agentex import render_message
from turnwire.model import Message, ToolResultBlock
from turnwire.server.context import AppContext
from turnwire.server.http.errors import RequestError
from turnwire.store.base import Store

Strategy = Literal["reject", "interrupt", "enqueue"]
STRATEGIES: Final[tuple[str, ...]] = ("reject", "interrupt", "enqueue")
MULTITASK_HEADER: Final = "x-turnwire-multitask"
BODY_FIELD: Final = "multitask_strategy"
ENDING_GRACE: Final = 1.0
"""Seconds a refused turn first waits for the running one to free the conversation: a turn that
sent its last chunk is still storing it when its client, reading that chunk, sends the next. Not
for a turn known to be still running (``LiveTurns.running_here``): that one is refused once
``CLIENT_LEFT_GRACE`` has passed without its client's departure reaching it."""
CLIENT_LEFT_GRACE: Final = 0.25
"""Seconds a refused turn waits for a running turn here to be stopped by its client's departure:
a client that closed its stream and asked again at once is heard before its close is."""
STOP_WAIT: Final = 10.0
"""Seconds ``interrupt`` waits for the stopped turn to store its end."""
_RESTOP: Final = 0.5

_claims: weakref.WeakKeyDictionary[Any, ConversationClaims] = weakref.WeakKeyDictionary()


def claims_of(app: AppContext) -> ConversationClaims:
    """The app's conversation claims (shared by every tenant's view, like its live turns), in
    Redis too when the pub/sub is Redis."""
    turns = app.turns
    claims = _claims.get(turns)
    if claims is None:
        claims = _claims[turns] = ConversationClaims(getattr(app.pubsub, "client", None))
    return claims


def requested_strategy(
    request: Request, value: Any = None, loc: tuple[str, ...] = ("body", BODY_FIELD)
) -> Strategy | None:
    """The request's strategy: its ``x-turnwire-multitask`` header, else ``value`` (the door's
    own field, at ``loc``); ``None``: the server's. 400 on anything else."""
    header = request.headers.get(MULTITASK_HEADER)
    if header is not None and header.strip():
        return _strategy(header, ("header", MULTITASK_HEADER))
    if value is None or value == "":
        return None
    return _strategy(value, loc)


def _strategy(value: Any, loc: tuple[str, ...]) -> Strategy:
    name = value.strip().lower() if isinstance(value, str) else value
    if name not in STRATEGIES:
        raise RequestError.at(400, f"{loc[-1]} must be one of: {', '.join(STRATEGIES)}", loc, "enum")
    return name  # type: ignore[return-value]


def answers_paused_turn(messages: Sequence[Message], message_id: str | None, regenerate: bool) -> bool:
    """Whether the request carries a decision or tool result, or continues a paused message: the
    resume of a turn, not a new one."""
    if regenerate:
        return False
    if message_id is not None:
        return True
    return bool(messages) and any(isinstance(b, ToolResultBlock) for b in messages[-1].content)


@dataclass(slots=True)
class Admission:
    """What the conversation's claim came to: the turn's ``claim`` (``None``: it runs unclaimed,
    a resume beside a running turn) and the turn it waited for, if any."""

    claim: Claim | None = None
    waited_for: str | None = None


async def admit(
    app: AppContext,
    key: str,
    session_id: str,
    turn_id: str,
    strategy: Strategy | None,
    *,
    resume: bool,
    loc: tuple[str | int, ...],
) -> Admission:
    """Claim conversation ``key`` for turn ``turn_id``, as the strategy says when it is busy."""
    claims = claims_of(app)
    got = await claims.acquire(key, turn_id)
    if isinstance(got, Claim):
        return Admission(got)
    if resume:
        return Admission()  # as before: the decision claims keep a resume one-shot
    strategy = strategy or app.settings.multitask
    holder = got
    if strategy == "reject":
        # A turn that already sent its end frees the conversation in moments: not "busy". One
        # still running in this process is busy now; of one elsewhere that is not known, so the
        # grace applies (its end may not have reached Redis when its client asks again).
        running = not await app.turns.leaving(holder, CLIENT_LEFT_GRACE)
        if not running and await claims.wait_free(key, ENDING_GRACE):
            got = await claims.acquire(key, turn_id)
            if isinstance(got, Claim):
                return Admission(got, waited_for=holder)
            holder = got
        raise _busy(session_id, holder, loc)
    if strategy == "interrupt":
        loop = asyncio.get_running_loop()
        deadline = loop.time() + STOP_WAIT
        while True:
            app.turns.stop(key)  # here, and on every worker through the pub/sub
            if await claims.wait_free(key, min(_RESTOP, max(0.0, deadline - loop.time()))):
                got = await claims.acquire(key, turn_id)
                if isinstance(got, Claim):
                    return Admission(got, waited_for=holder)
                holder = got  # another turn got in first: interrupt that one too
            if loop.time() >= deadline:
                raise _busy(session_id, holder, loc, stopping=True)
    while True:  # enqueue: as long as the running turn runs (it has its own idle bound)
        await claims.wait_free(key, None)
        got = await claims.acquire(key, turn_id)
        if isinstance(got, Claim):
            return Admission(got, waited_for=holder)


def _busy(
    session_id: str, holder: str, loc: tuple[str | int, ...], *, stopping: bool = False
) -> RequestError:
    if stopping:
        msg = f"conversation {session_id!r} is still running turn {holder!r}: it did not stop in time"
    else:
        msg = (
            f"conversation {session_id!r} is running turn {holder!r}; wait for it to end, stop it, "
            f"or send {MULTITASK_HEADER}: interrupt or enqueue"
        )
    return RequestError.at(409, msg, loc, "turn_running")


async def after_waiting(
    store: Store, conversation: Conversation, messages: Sequence[Message], waited_for: str
) -> Conversation:
    """The conversation of a turn that waited for (or interrupted) turn ``waited_for``, when its
    client sent its whole history: that history was sent before the other turn's reply existed,
    so the client's new messages go after that reply instead of rewinding it away.

    A history that holds the other turn's reply already (its client read it, or its end, before
    asking again) goes on from it as planned; one that diverges from the conversation as it was
    before the other turn (an edit) is taken as sent, as always."""
    if conversation.plan.keep is None:  # planned on the stored reply without a rewind
        return conversation
    current = await read_conversation(store, conversation.task_id)
    theirs = [m for m in current if m.note.get("turn") == waited_for]
    if not theirs:
        return conversation
    before = [m.record["content"] for m in current if m.note.get("turn") != waited_for]
    # The client's copy of the other turn's reply (a page shows the part it received).
    ids = {m.id for m in theirs} | {m.note.get("message_id") for m in theirs}
    mine = [m for m in messages if not (m.id and m.id in ids)]
    plan = plan_inbound(before, mine)
    if plan.keep is not None:
        return conversation
    fresh = await conversation_on_task(
        store, conversation.task, _last_messages(mine, len(plan.new)), from_store=True
    )
    fresh.clock = conversation.clock
    return fresh


def _last_messages(messages: Sequence[Message], units: int) -> list[Message]:
    """The trailing messages holding the last ``units`` stored contents (one per rendered block)."""
    if units <= 0:
        return []
    count = 0
    for start in range(len(messages) - 1, -1, -1):
        count += len(render_message(messages[start]))
        if count >= units:
            return list(messages[start:])
    return list(messages)
