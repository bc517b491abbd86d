"""The asyncio client: the same API as ``sync`` with ``async with`` / ``async for`` / ``await``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import httpx

from turnwire.client.conversation import Conversation, Format, Transport
from turnwire.client.errors import ClientError, error_body
from turnwire.client.sync import DEFAULT_TIMEOUT, DEFAULT_URL, client_headers
from turnwire.client.turns import TurnState
from turnwire.client.wire import EventReader
from turnwire.formats import agenta, vercel
from turnwire.model import Event, InteractionRequest, Message, Turn


class AsyncClient:
    """``Client`` for asyncio (see ``turnwire.client.sync.Client``)."""

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        agent: str | None = None,
        format: Format = "agenta",
        transport: Transport = "sse",
        headers: Mapping[str, str] | None = None,
        timeout: httpx.Timeout | float = DEFAULT_TIMEOUT,
        http: httpx.AsyncClient | None = None,
        api_key: str | None = None,
    ) -> None:
        self.agent = agent
        self.format: Format = format
        self.transport: Transport = transport
        self._own = http is None
        self.http = http or httpx.AsyncClient(
            base_url=base_url.rstrip("/"), headers=client_headers(headers, api_key), timeout=timeout
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own:
            await self.http.aclose()

    async def session(self, session_id: str | None = None, *, resume: bool = False) -> AsyncSession:
        conv = Conversation(agent=self.agent, format=self.format)
        if session_id:
            conv.session_id = session_id
        if resume:
            conv.history = await self.history(conv.session_id, missing_ok=True)
        return AsyncSession(self, conv)

    async def send(self, text: str | Sequence[Message], *, session_id: str | None = None) -> AsyncClientTurn:
        return await (await self.session(session_id)).send(text)

    async def history(
        self, session_id: str, *, format: Format | None = None, missing_ok: bool = False
    ) -> list[Message]:
        fmt = format or self.format
        r = await self.http.get(f"/tasks/{session_id}/messages", params={"format": fmt})
        if r.status_code == 404 and missing_ok:
            return []
        if r.status_code >= 400:
            raise ClientError(r.status_code, error_body(r.content))
        parse = vercel.parse_messages if fmt == "vercel" else agenta.parse_messages
        return parse(r.json().get("messages") or [])


class AsyncSession:
    """``Session`` for asyncio."""

    def __init__(self, client: AsyncClient, conversation: Conversation) -> None:
        self.client = client
        self.conversation = conversation

    @property
    def id(self) -> str:
        return self.conversation.session_id

    @property
    def history(self) -> list[Message]:
        return self.conversation.history

    async def send(
        self, text: str | Sequence[Message], *, transport: Transport | None = None
    ) -> AsyncClientTurn:
        checkpoint = self.conversation.checkpoint()
        new = self.conversation.user(text) if isinstance(text, str) else list(text)
        return await self._turn(new, transport, checkpoint)

    async def _turn(
        self, new: list[Message], transport: Transport | None, checkpoint: list[Message]
    ) -> AsyncClientTurn:
        """Run one turn; a refused or failed request leaves the history as it was."""
        try:
            return await self._request(new, transport)
        except BaseException:
            self.conversation.rollback(checkpoint)
            raise

    async def _request(self, new: list[Message], transport: Transport | None) -> AsyncClientTurn:
        transport = transport or self.client.transport
        req = self.conversation.request(new, transport)
        http = self.client.http
        if transport == "batch":
            r = await http.post(req.path, json=req.body, headers=req.headers)
            if r.status_code >= 400:
                raise ClientError(r.status_code, error_body(r.content))
            turn = AsyncClientTurn(self, None, None)
            turn.state.finish_batch(r.json().get("data", {}).get("outputs", {}))
            return turn
        request = http.build_request("POST", req.path, json=req.body, headers=req.headers)
        response = await http.send(request, stream=True)
        if response.status_code >= 400:
            body = error_body(await response.aread())
            await response.aclose()
            raise ClientError(response.status_code, body)
        return AsyncClientTurn(self, response, EventReader(self.conversation.format, transport == "sse"))


class AsyncClientTurn:
    """``ClientTurn`` for asyncio: ``async for event in turn``, ``await turn.result()``."""

    def __init__(
        self, session: AsyncSession, response: httpx.Response | None, reader: EventReader | None
    ) -> None:
        self.session = session
        self.state = TurnState(session.conversation)
        self._response = response
        self._reader = reader
        self._lines: AsyncIterator[str] | None = response.aiter_lines() if response is not None else None
        self._cancelled = False

    async def __aiter__(self) -> AsyncIterator[Event]:
        if self._lines is None or self._reader is None:
            for event in list(self.state.events):
                yield event
            return
        try:
            async for line in self._lines:
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
            await self._end()

    async def _end(self) -> None:
        if self._response is not None:
            await self._response.aclose()
        self._lines = None
        message_id = self._reader.message_id if self._reader is not None else None
        self.state.finish_stream(message_id, self._cancelled)

    @property
    def events(self) -> list[Event]:
        return self.state.events

    async def result(self) -> Turn:
        if self.state.result is None:
            async for _ in self:
                pass
        assert self.state.result is not None
        return self.state.result

    async def cancel(self) -> None:
        self._cancelled = True
        if self.state.result is None:
            await self._end()

    async def pending(self) -> list[InteractionRequest]:
        await self.result()
        return self.state.pending

    async def decide(self, decisions: Mapping[str, bool], *, reason: str | None = None) -> AsyncClientTurn:
        await self.result()
        checkpoint = self.session.conversation.checkpoint()
        try:
            messages = self.state.decision_messages(decisions, reason)
        except ValueError:
            self.session.conversation.rollback(checkpoint)
            raise
        return await self.session._turn(messages, None, checkpoint)

    async def approve(
        self, request: str | InteractionRequest | None = None, *, reason: str | None = None
    ) -> AsyncClientTurn:
        await self.result()
        return await self.decide(self.state.one_decision(request, True), reason=reason)

    async def deny(
        self, request: str | InteractionRequest | None = None, *, reason: str | None = None
    ) -> AsyncClientTurn:
        await self.result()
        return await self.decide(self.state.one_decision(request, False), reason=reason)

    async def answer(self, text: str) -> AsyncClientTurn:
        await self.result()
        self.state.check_input_request()
        return await self.session.send(text)

    def __repr__(self) -> str:
        status: Any = self.state.result.stop_reason if self.state.result else "streaming"
        return f"<AsyncClientTurn session={self.session.id} {status}>"
