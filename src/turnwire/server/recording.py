"""Storing turns from the HTTP front doors (``/invoke``, ``/chat``) on the session's task; the
Agentex ``message/send`` RPC records through the same ``TurnRecorder``.

The app's store is ``app.state.store`` and its fan-out ``app.state.pubsub``; without a store (a
router mounted in someone else's app) nothing is recorded and turns run as before.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Final

from starlette.requests import Request

from turnwire.model import Event, Message
from turnwire.recorder import Session, TurnRecorder, prepare_session
from turnwire.server.errors import RequestError
from turnwire.store.errors import ConflictError

HISTORY_HEADER: Final = "x-ag-history"
STORED: Final = "stored"
TASK_ID_HEADER: Final = "x-ag-task-id"


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


class Recording:
    """One request's turn on its task: the history to run on, then the recorded event stream."""

    __slots__ = ("pubsub", "session", "store")

    def __init__(self, store: Any, pubsub: Any, session: Session) -> None:
        self.store = store
        self.pubsub = pubsub
        self.session = session

    @property
    def history(self) -> list[Message]:
        return self.session.history

    @property
    def task_id(self) -> str:
        return self.session.task_id

    def record(self, events: AsyncIterator[Event], *, batch: bool = False) -> AsyncIterator[Event]:
        """``events``, recorded: the client's new messages and the turn's output are stored.

        ``batch``: the response goes out only after the turn (``Accept: application/json``), so
        everything is written at the end in one transaction instead of as it streams.
        """
        session = self.session
        recorder = TurnRecorder(
            self.store,
            self.task_id,
            self.pubsub,
            inbound=session.take_inbound(),
            batch=batch,
            clock=session.clock,
        )
        return recorder.record(events)


async def open_recording(
    request: Request, session_id: str, messages: list[Message], *, from_store: bool = False
) -> Recording | None:
    """The session's recording, or ``None`` when the app has no store.

    Raises ``RequestError`` 409 when the session id names a deleted task.
    """
    state = request.app.state
    store = getattr(state, "store", None)
    if store is None:
        return None
    try:
        session = await prepare_session(store, session_id, messages, from_store=from_store)
    except ConflictError as exc:
        raise RequestError.at(409, str(exc), ("body", "session_id"), "session_deleted") from None
    return Recording(store, getattr(state, "pubsub", None), session)
