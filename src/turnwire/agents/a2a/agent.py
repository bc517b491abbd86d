"""``a2a_agent(url)``: a remote A2A agent as a turnwire agent, served on every door.

Each turn sends the user's new message to the remote agent (``SendStreamingMessage``, JSON-RPC,
protocol 1.0) with the turnwire session as its ``contextId`` (the remote keeps its history by it)
and turns the stream into canonical events (``events``). When the remote task stops in
``TASK_STATE_INPUT_REQUIRED``, the turn pauses with the request: a remote approval becomes a
turnwire approval of the same call (signed here, checked by the pipeline like any decision), a
question a ``user_input`` request; the next turn sends the user's decision or answer back on the
same remote ``taskId`` (the remote's own interaction token for an approval). A turn that is
cancelled (stop, a client leaving) cancels the remote task (``CancelTask``).

What a remote task waits for is kept in this process: after a restart, a paused remote task is
not resumed (the user's next message starts a new remote task in the same context).
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, Final

import httpx
import orjson

from turnwire.agents.a2a.events import RemotePause, RemoteStream
from turnwire.model import Done, ErrorEvent, Event, Message, Role, TextBlock
from turnwire.runtime import TurnContext

CARD_PATH: Final = "/.well-known/agent-card.json"
CANCEL_WAIT: Final = 5.0
VERSION_HEADER: Final = "A2A-Version"


class A2AAgent:
    """A remote A2A agent (its card at ``url``, or the base URL the card is under)."""

    def __init__(self, url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 300.0) -> None:
        self.card_url = url if url.endswith(".json") else url.rstrip("/") + CARD_PATH
        self.headers = {VERSION_HEADER: "1.0", **(headers or {})}
        self.timeout = timeout
        self.card: dict[str, Any] | None = None
        self._pauses: dict[str, RemotePause] = {}
        self.__doc__ = f"The remote A2A agent at {url}."

    async def endpoint(self, client: httpx.AsyncClient) -> str:
        """The JSON-RPC URL the remote card names (the card is read once)."""
        if self.card is None:
            response = await client.get(self.card_url, headers=self.headers)
            response.raise_for_status()
            self.card = response.json()
        interfaces = self.card.get("supportedInterfaces") or []
        for interface in interfaces:
            if interface.get("protocolBinding") == "JSONRPC" and interface.get("url"):
                return str(interface["url"])
        legacy = self.card.get("url")  # a v0.3 card
        if isinstance(legacy, str) and legacy:
            return legacy
        raise RuntimeError(f"the agent card at {self.card_url} names no JSON-RPC interface")

    @property
    def skills(self) -> list[dict[str, Any]]:
        """The remote card's skills (empty until the card was read)."""
        return list((self.card or {}).get("skills") or [])

    def __call__(self, ctx: TurnContext) -> AsyncIterator[Event]:
        return self._turn(ctx)

    async def _turn(self, ctx: TurnContext) -> AsyncIterator[Event]:
        # A paused turn is parked at its ``Done`` (a warm session sends the next turn's context
        # into it): the remote exchange is over by then, and the next one starts from that context.
        current: TurnContext | None = ctx
        while current is not None:
            done: Done | None = None
            # Closed with this turn (a stop, a client leaving): its ``finally`` cancels the remote task.
            async with contextlib.aclosing(self._exchange(current)) as events:
                async for event in events:
                    if isinstance(event, Done):
                        done = event
                    else:
                        yield event
            if done is None:
                return
            current = yield done

    async def _exchange(self, ctx: TurnContext) -> AsyncGenerator[Event, None]:
        """One remote exchange: send this turn's message, stream the answer; what the remote task
        waits for is kept for the session's next turn before the turn's ``Done`` goes out."""
        pause = self._pauses.pop(ctx.session_id, None)
        message = outbound_message(ctx, pause)
        if message is None:
            return
        stream = RemoteStream()
        finished = False
        async with httpx.AsyncClient(timeout=self.timeout) as client:
            try:
                endpoint = await self.endpoint(client)
                body = {
                    "jsonrpc": "2.0",
                    "id": uuid.uuid4().hex,
                    "method": "SendStreamingMessage",
                    "params": {"message": message},
                }
                headers = {**self.headers, "accept": "text/event-stream"}
                async with client.stream("POST", endpoint, json=body, headers=headers) as response:
                    async for answer in _answers(response):
                        if "error" in answer:
                            error = answer["error"] if isinstance(answer["error"], dict) else {}
                            yield ErrorEvent(
                                str(error.get("message") or error), code=f"a2a_{error.get('code')}"
                            )
                            yield Done("error")
                            finished = True
                            return
                        for event in stream.events(answer.get("result") or {}):
                            if isinstance(event, Done) and stream.pause is not None:
                                self._pauses[ctx.session_id] = stream.pause
                            yield event
                for event in stream.close():
                    yield event
                finished = True
            finally:
                if not finished and stream.task_id and stream.stop_reason is None:
                    await _cancel(client, self.headers, stream.task_id, self.card)


def outbound_message(ctx: TurnContext, pause: RemotePause | None) -> dict[str, Any] | None:
    """The A2A message this turn sends: the user's new text (a new remote task), or the answer
    to what the remote task waits for (its decisions, or the user's text) on its ``taskId``."""
    text = _last_user_text(ctx.messages)
    message: dict[str, Any] = {
        "messageId": uuid.uuid4().hex,
        "role": "ROLE_USER",
        "contextId": ctx.session_id,
    }
    if pause is not None and pause.tokens:
        decided = ctx.decisions()
        parts = [
            {"data": {"approved": decided[c].approved, "interactionToken": t, "toolCallId": c}}
            for c, t in pause.tokens.items()
            if c in decided
        ]
        if parts:
            return {**message, "contextId": pause.context_id, "taskId": pause.task_id, "parts": parts}
    if pause is not None and pause.question and text:
        return {**message, "contextId": pause.context_id, "taskId": pause.task_id, "parts": [{"text": text}]}
    if not text:
        return None
    return {**message, "parts": [{"text": text}]}


def _last_user_text(messages: list[Message]) -> str:
    for message in reversed(messages):
        if message.role == Role.USER:
            return "".join(b.text for b in message.content if isinstance(b, TextBlock))
        if message.role == Role.TOOL:
            return ""  # the turn answers an approval: no new user text
    return ""


async def _answers(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """The JSON-RPC answers of a streamed reply (an SSE stream, or one JSON error up front)."""
    if "text/event-stream" not in response.headers.get("content-type", ""):
        body = await response.aread()
        try:
            answer = orjson.loads(body)
        except orjson.JSONDecodeError:
            answer = {"error": {"code": response.status_code, "message": body.decode(errors="replace")[:500]}}
        yield answer if isinstance(answer, dict) else {"error": {"message": "not a JSON-RPC answer"}}
        return
    data: list[str] = []
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            data.append(line[5:].lstrip())
        elif not line and data:
            yield orjson.loads("\n".join(data))
            data = []
    if data:
        yield orjson.loads("\n".join(data))


async def _cancel(client: httpx.AsyncClient, headers: Mapping[str, str], task_id: str, card: Any) -> None:
    """Best effort: the local turn ended early, so the remote task should too."""
    interfaces = (card or {}).get("supportedInterfaces") or [{}]
    endpoint = next((i.get("url") for i in interfaces if i.get("protocolBinding") == "JSONRPC"), None)
    if not endpoint:
        return
    body = {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": "CancelTask", "params": {"id": task_id}}
    with contextlib.suppress(Exception):
        await asyncio.wait_for(
            asyncio.shield(client.post(endpoint, json=body, headers=dict(headers))), CANCEL_WAIT
        )


def a2a_agent(url: str, *, headers: Mapping[str, str] | None = None, timeout: float = 300.0) -> A2AAgent:
    """The remote A2A agent whose card is at ``url`` (or under it) as a turnwire agent."""
    return A2AAgent(url, headers=headers, timeout=timeout)
