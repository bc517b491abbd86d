"""The one turn pipeline behind every front door.

parse (the door) → stored history / rewind → approval check → warm session → run → record →
encode (the door, through its format's adapter).

Every door — ``/invoke``, ``/chat``, Agentex ``message/send`` — starts its turn with
``start_turn``, so whatever one door guarantees (signed approvals, recording, cancellation, trace
ids) every door guarantees. A door only reads its request into a ``TurnRequest`` and writes the
``StartedTurn``'s events in its own wire format.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from starlette.requests import Request

from turnwire.conversations.recording import TurnRecorder, settled
from turnwire.conversations.stored import Conversation, conversation_on_task, open_conversation
from turnwire.conversations.turn_endings import SETTLE_SECONDS
from turnwire.errors import InputError
from turnwire.model import Message
from turnwire.runtime import TurnContext
from turnwire.runtime.approvals import ApprovalRejected
from turnwire.runtime.context import new_random_id
from turnwire.runtime.runner import EventRun
from turnwire.runtime.transcript import Decision
from turnwire.server.context import AppContext
from turnwire.server.http.errors import RequestError
from turnwire.server.http.models import WIRE_VERSION
from turnwire.server.http.request_id import request_id
from turnwire.server.turns.decision_claims import claim_decisions
from turnwire.server.turns.failure_log import ReportingRun
from turnwire.server.turns.multitask import Admission, Strategy, admit, after_waiting, answers_paused_turn
from turnwire.server.turns.shutdown import SHUTDOWN
from turnwire.store.conversation_list import AGENT_KEY
from turnwire.store.errors import ConflictError, NotFoundError

TASK_ID_HEADER: Final = "x-ag-task-id"


@dataclass(slots=True)
class TurnRequest:
    """What a door read from its request."""

    agent_name: str
    messages: list[Message]
    """The client's messages (the whole history, or only the new ones with ``from_store``)."""
    session_id: str = ""
    """The conversation's id; ``""`` = a fresh one."""
    loc: tuple[str | int, ...] = ("body", "messages")
    """Where the messages are in the request: errors about one of them name ``(*loc, index)``."""
    parameters: dict[str, Any] = field(default_factory=dict)
    from_store: bool = False
    """The client sent only its new messages: the turn runs on the stored conversation plus them."""
    regenerate: bool = False
    """The client asks the last answer again: a parked agent is not resumed."""
    batch: bool = False
    """The answer goes out when the turn is over: the recording is written in one transaction."""
    task: dict[str, Any] | None = None
    """The task, when the door already names it (Agentex)."""
    message_id: str | None = None
    """The id of the answer's assistant message when the client names it (a continuation keeps the
    message it continues); ``None``: ``msg-<trace id>``."""
    multitask: Strategy | None = None
    """What to do when the conversation is running a turn (``multitask``); ``None``: the server's."""
    session_loc: tuple[str | int, ...] = ("body", "session_id")
    """Where the session id is in the request: a refusal because it is busy names it."""


@dataclass(slots=True)
class StartedTurn:
    """A running turn: its (recorded) events and what the door needs to answer."""

    events: EventRun
    history: list[Message]
    session_id: str
    trace_id: str
    task_id: str | None = None
    recorder: TurnRecorder | None = None
    message_id: str = ""
    """The answer's assistant message id: what a stream announces and the store keeps."""
    admission: Admission | None = None
    """The turn's claim on its conversation, given back when its stream ends (``running``)."""

    @property
    def headers(self) -> dict[str, str]:
        """The ``x-ag-*`` headers every turn answer carries."""
        out = {
            "x-ag-version": WIRE_VERSION,
            "x-ag-session-id": self.session_id,
            "x-ag-trace-id": self.trace_id,
        }
        if self.task_id is not None:
            out[TASK_ID_HEADER] = self.task_id
        return out


async def start_turn(app: AppContext, request: TurnRequest) -> StartedTurn:
    """Start one turn. Refuses (``RequestError``) an unknown agent (404), a deleted session (409)
    and a decision the server did not issue (409/422) before any agent code runs; 503 once the
    server is shutting down (the turn would be cancelled at once: the client should retry)."""
    if SHUTDOWN.started:
        raise RequestError.at(503, "the server is shutting down; retry the request", (), "shutting_down")
    agent = app.agent(request.agent_name)
    session_id = request.session_id or new_random_id()
    # Tokens and warm agents are the tenant's: one tenant's session "chat" is not another's.
    scope = session_scope(app.tenant, session_id)
    resume = answers_paused_turn(request.messages, request.message_id, request.regenerate)
    # Observed (tracing, metrics: ``turnwire.observability``), the turn's trace id is its span's.
    watch = (
        None
        if app.observe is None
        else app.observe.start_turn(request.agent_name, session_id, scope, resume=resume)
    )
    trace_id = new_random_id() if watch is None else watch.trace_id
    # Traced, the turn's span is current while it starts: its store reads and waits are children.
    attached = None if watch is None else watch.attach()
    try:
        # One turn at a time per conversation, claimed before anything of it is read or written.
        admission = await admit(
            app, scope, session_id, trace_id, request.multitask, resume=resume, loc=request.session_loc
        )
        try:
            started = await _start(app, request, agent, session_id, trace_id, scope, admission)
        except BaseException:
            if admission.claim is not None:
                await admission.claim.release()
            raise
    except BaseException as exc:
        if watch is not None:
            watch.failed(exc)
        raise
    finally:
        if attached is not None:
            watch.detach(attached)  # type: ignore[union-attr]
    if watch is not None:
        started.events = watch.watch(started.events, started.task_id)
    return started


async def _start(
    app: AppContext,
    request: TurnRequest,
    agent: Any,
    session_id: str,
    trace_id: str,
    scope: str,
    admission: Admission,
) -> StartedTurn:
    history = request.messages
    if request.session_id is not None and app.store is not None:
        # The session's previous turn, on another worker, may have sent its last chunk and not be
        # stored yet: the conversation is read once it is (``LiveTurns.settled``, bounded).
        await app.turns.settled(session_scope(app.tenant, session_id), SETTLE_SECONDS)
    conversation = await _open_conversation(app, request, session_id)
    if conversation is not None and await settled(conversation.task_id):
        # The session's previous turn had sent its last chunk but was not stored yet.
        conversation = await _open_conversation(app, request, session_id)
    waited_for = admission.waited_for
    if conversation is not None and app.store is not None and waited_for and not request.from_store:
        conversation = await after_waiting(app.store, conversation, request.messages, waited_for)
    if conversation is not None:
        history = conversation.history
    found = _check_decisions(app, history, scope, request.loc)
    claimed = None
    if conversation is not None and app.store is not None:
        claimed = await claim_decisions(
            app.store, conversation.task_id, history, found, conversation.stored, request.loc
        )
        history, agent = claimed.history, claimed.agent(agent)
    warm = app.warm
    if request.regenerate:
        warm.forget(request.agent_name, scope)
    message_id = request.message_id or f"msg-{trace_id}"
    ctx = TurnContext(
        messages=history, session_id=session_id, parameters=request.parameters, trace_id=trace_id
    )
    events: EventRun = warm.start(request.agent_name, agent, ctx, session_key=scope)
    # A failed turn is one WARNING line (request id, trace id); the traceback is the runner's, at DEBUG.
    events = ReportingRun(
        events, agent=request.agent_name, session=session_id, request_id=request_id(), trace_id=trace_id
    )
    if conversation is None or app.store is None:
        return StartedTurn(events, history, session_id, trace_id, message_id=message_id, admission=admission)
    recorder = TurnRecorder(
        app.store,
        conversation.task_id,
        app.pubsub,
        inbound=conversation.take_inbound(),
        batch=request.batch,
        flush_interval=app.settings.flush_seconds,
        clock=conversation.clock,
        message_id=message_id,
        turn_id=trace_id,
    )
    task_id = conversation.task_id
    recorded: EventRun = recorder.record(events)  # type: ignore[assignment]
    if claimed is not None:
        recorded = claimed.settling(recorded, app.store, task_id)
    return StartedTurn(
        recorded, history, session_id, trace_id, task_id, recorder, message_id=message_id, admission=admission
    )


async def _open_conversation(app: AppContext, request: TurnRequest, session_id: str) -> Conversation | None:
    store = app.store
    if store is None:
        return None
    if request.task is not None:
        conversation = await conversation_on_task(
            store, request.task, request.messages, from_store=request.from_store
        )
    else:
        try:
            conversation = await open_conversation(
                store, session_id, request.messages, from_store=request.from_store, agent=request.agent_name
            )
        except ConflictError as exc:
            raise RequestError.at(409, str(exc), ("body", "session_id"), "session_deleted") from None
    metadata = conversation.task.get("task_metadata")
    if not isinstance(metadata, dict) or AGENT_KEY not in metadata:
        # A task created without its agent (an Agentex ``task/create``, a Responses conversation,
        # a task older than this field): its first turn here says which agent serves it, once.
        with contextlib.suppress(NotFoundError):  # deleted meanwhile: the turn's writes will say so
            await store.label_task(conversation.task_id, agent=request.agent_name)
        conversation.task["task_metadata"] = {**(metadata or {}), AGENT_KEY: request.agent_name}
    return conversation


def session_scope(tenant: str, session_id: str) -> str:
    """What approval tokens and warm agents are keyed by: the session id, within its tenant."""
    return f"{tenant}\x1f{session_id}" if tenant else session_id


def _check_decisions(
    app: AppContext, history: Sequence[Message], scope: str, loc: tuple[str | int, ...]
) -> dict[str, Decision]:
    """Refuse a history holding a decision this server did not issue for exactly this
    conversation, call, tool and input (409; 422 when the token is missing)."""
    try:
        return app.warm.signer.check_decisions(history, scope)
    except ApprovalRejected as exc:
        error = InputError(exc.msg, loc=(*loc, exc.index), type=exc.reason)
        raise RequestError(exc.status, [error]) from None


HISTORY_HEADER: Final = "x-ag-history"
STORED: Final = "stored"


def wants_stored_history(request: Request, body: Any = None) -> bool:
    """``x-ag-history: stored``, or a ``/chat`` body carrying one ``message`` and no ``messages``
    (the AI SDK's "send only the last message" pattern): the client sent only its new messages."""
    value = request.headers.get(HISTORY_HEADER)
    if value is not None:
        value = value.strip().lower()
        if value not in (STORED, "client", ""):
            raise RequestError.at(
                400, "x-ag-history must be 'stored' or 'client'", ("header", HISTORY_HEADER), "enum"
            )
        return value == STORED
    return isinstance(body, dict) and body.get("messages") is None and isinstance(body.get("message"), dict)
