"""The blocking client: ``Client`` → ``Session`` → ``ClientTurn`` (iterate its events as they
arrive, ``result()`` for the folded turn, ``approve()`` / ``deny()`` / ``answer()`` to go on)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import httpx

from turnwire.client.conversation import Conversation, Format, Transport
from turnwire.client.errors import ClientError, error_body
from turnwire.client.turns import TurnState
from turnwire.client.wire import EventReader
from turnwire.formats import agenta, vercel
from turnwire.model import Event, InteractionRequest, Message, Turn

DEFAULT_URL = "http://127.0.0.1:8000"
DEFAULT_TIMEOUT = httpx.Timeout(10.0, read=300.0)


def client_headers(headers: Mapping[str, str] | None, api_key: str | None) -> dict[str, str]:
    """``headers`` plus ``Authorization: Bearer <api_key>`` (unless ``headers`` already authorize)."""
    out = dict(headers or {})
    if api_key and not any(name.lower() == "authorization" for name in out):
        out["Authorization"] = f"Bearer {api_key}"
    return out


class Client:
    """A turnwire (or any Agenta invoke protocol) server at ``base_url``.

    ``format``: ``agenta`` (``/invoke``, Agenta frames over SSE or NDJSON, or batch JSON) or
    ``vercel`` (``/chat``, the UI Message Stream). ``agent``: a named agent
    (``/agents/{agent}/...``) instead of the server's default one. ``api_key``: sent as
    ``Authorization: Bearer <key>`` to a server started with ``--api-key``.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        agent: str | None = None,
        format: Format = "agenta",
        transport: Transport = "sse",
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        http: httpx.Client | None = None,
        api_key: str | None = None,
    ) -> None:
        self.agent = agent
        self.format: Format = format
        self.transport: Transport = transport
        self._own = http is None
        self.http = http or httpx.Client(
            base_url=base_url.rstrip("/"), headers=client_headers(headers, api_key), timeout=timeout
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._own:
            self.http.close()

    def session(self, session_id: str | None = None, *, resume: bool = False) -> Session:
        """A conversation; ``resume`` loads its stored history first (empty if the server has none)."""
        conv = Conversation(agent=self.agent, format=self.format)
        if session_id:
            conv.session_id = session_id
        if resume:
            conv.history = self.history(conv.session_id, missing_ok=True)
        return Session(self, conv)

    def send(self, text: str | Sequence[Message], *, session_id: str | None = None) -> ClientTurn:
        """One turn of a new conversation (or of ``session_id``, without its earlier history)."""
        return self.session(session_id).send(text)

    def history(
        self, session_id: str, *, format: Format | None = None, missing_ok: bool = False
    ) -> list[Message]:
        """The stored conversation of ``session_id`` (``GET /tasks/{id}/messages``), as canonical messages."""
        fmt = format or self.format
        r = self.http.get(f"/tasks/{session_id}/messages", params={"format": fmt})
        if r.status_code == 404 and missing_ok:
            return []
        if r.status_code >= 400:
            raise ClientError(r.status_code, error_body(r.content))
        parse = vercel.parse_messages if fmt == "vercel" else agenta.parse_messages
        return parse(r.json().get("messages") or [])

    def agents(self) -> list[str]:
        """Names of the agents the server hosts (``GET /agents``; ``[]`` if it has no such route)."""
        r = self.http.get("/agents")
        if r.status_code >= 400:
            return []
        agents = r.json()
        if not isinstance(agents, list):
            return []
        return [
            name for a in agents if isinstance(a, dict) and isinstance(name := a.get("name"), str) and name
        ]


class Session:
    """One conversation: its id, its history (kept here and resent every turn), its turns."""

    def __init__(self, client: Client, conversation: Conversation) -> None:
        self.client = client
        self.conversation = conversation

    @property
    def id(self) -> str:
        return self.conversation.session_id

    @property
    def history(self) -> list[Message]:
        return self.conversation.history

    def send(self, text: str | Sequence[Message], *, transport: Transport | None = None) -> ClientTurn:
        checkpoint = self.conversation.checkpoint()
        new = self.conversation.user(text) if isinstance(text, str) else list(text)
        return self._turn(new, transport, checkpoint)

    def _turn(self, new: list[Message], transport: Transport | None, checkpoint: list[Message]) -> ClientTurn:
        """Run one turn; a refused or failed request leaves the history as it was."""
        try:
            return self._request(new, transport)
        except BaseException:
            self.conversation.rollback(checkpoint)
            raise

    def _request(self, new: list[Message], transport: Transport | None) -> ClientTurn:
        transport = transport or self.client.transport
        req = self.conversation.request(new, transport)
        http = self.client.http
        if transport == "batch":
            r = http.post(req.path, json=req.body, headers=req.headers)
            if r.status_code >= 400:
                raise ClientError(r.status_code, error_body(r.content))
            turn = ClientTurn(self, None, None)
            turn.state.finish_batch(r.json().get("data", {}).get("outputs", {}))
            return turn
        response = http.send(
            http.build_request("POST", req.path, json=req.body, headers=req.headers), stream=True
        )
        if response.status_code >= 400:
            body = error_body(response.read())
            response.close()
            raise ClientError(response.status_code, body)
        return ClientTurn(self, response, EventReader(self.conversation.format, transport == "sse"))


class ClientTurn:
    """One turn being answered. Iterate it for events as they arrive; ``result()`` waits for the end."""

    def __init__(self, session: Session, response: httpx.Response | None, reader: EventReader | None) -> None:
        self.session = session
        self.state = TurnState(session.conversation)
        self._response = response
        self._reader = reader
        self._lines: Iterator[str] | None = response.iter_lines() if response is not None else None
        self._cancelled = False

    def __iter__(self) -> Iterator[Event]:
        if self._lines is None or self._reader is None:  # a batch turn, or read to the end already
            yield from self.state.events
            return
        try:
            for line in self._lines:
                for event in self._reader.feed(line):
                    self.state.events.append(event)
                    yield event
            for event in self._reader.flush():
                self.state.events.append(event)
                yield event
        except httpx.HTTPError:
            if not self._cancelled:
                raise
        finally:
            self._end()

    def _end(self) -> None:
        if self._response is not None:
            self._response.close()
        self._lines = None
        message_id = self._reader.message_id if self._reader is not None else None
        self.state.finish_stream(message_id, self._cancelled)

    @property
    def events(self) -> list[Event]:
        return self.state.events

    def result(self) -> Turn:
        """The folded turn (waits for the rest of the stream)."""
        if self.state.result is None:
            for _ in self:
                pass
        assert self.state.result is not None
        return self.state.result

    def cancel(self) -> None:
        """Stop reading: the connection closes and the server cancels the agent."""
        self._cancelled = True
        if self.state.result is None:
            self._end()

    @property
    def stop_reason(self) -> str | None:
        return self.result().stop_reason

    @property
    def pending(self) -> list[InteractionRequest]:
        """Every request the paused turn waits on (empty unless it stopped ``paused``)."""
        self.result()
        return self.state.pending

    def decide(self, decisions: Mapping[str, bool], *, reason: str | None = None) -> ClientTurn:
        """Answer approval requests (``{request id: approved}``) and run the next turn."""
        self.result()
        checkpoint = self.session.conversation.checkpoint()
        try:
            messages = self.state.decision_messages(decisions, reason)
        except ValueError:
            self.session.conversation.rollback(checkpoint)
            raise
        return self.session._turn(messages, None, checkpoint)

    def approve(
        self, request: str | InteractionRequest | None = None, *, reason: str | None = None
    ) -> ClientTurn:
        """Approve ``request`` (default: every pending approval) and run the next turn."""
        self.result()
        return self.decide(self.state.one_decision(request, True), reason=reason)

    def deny(
        self, request: str | InteractionRequest | None = None, *, reason: str | None = None
    ) -> ClientTurn:
        """Deny ``request`` (default: every pending approval) and run the next turn."""
        self.result()
        return self.decide(self.state.one_decision(request, False), reason=reason)

    def answer(self, text: str) -> ClientTurn:
        """Answer a user-input request with ``text`` (the next user message)."""
        self.result()
        self.state.check_input_request()
        return self.session.send(text)

    def __repr__(self) -> str:
        status: Any = self.state.result.stop_reason if self.state.result else "streaming"
        return f"<ClientTurn session={self.session.id} {status}>"
