"""One client flow per wire format: first turn, answer approvals, answer a question, summarize.

Every flow talks HTTP to a real server and rebuilds the next request the way that format's client
does: Agenta batch replays the batch messages plus decisions, Agenta SSE rebuilds the paused message
from frames, Vercel (``/invoke`` with the vercel header, and ``/chat``) replays the assembled
assistant UIMessage with its tool parts in ``approval-responded``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from approvals_wire import (
    agenta_batch,
    agenta_decision,
    agenta_frames,
    agenta_replay,
    chat_chunks,
    ui_assistant,
    user,
    vercel_chunks,
)


@dataclass
class Reply:
    """One turn as the client saw it, reduced to what the tests compare."""

    status: int
    body: Any
    history: list[Any]
    stop: str | None = None
    text: str = ""
    gates: dict[str, str] = field(default_factory=dict)
    """Pending approval: tool call id → approval id / interaction token."""
    outcomes: dict[str, str] = field(default_factory=dict)
    """Tool call id → ``output`` or ``denied``."""
    trace_ids: list[str] = field(default_factory=list)
    message_id: str | None = None


class AgentaBatch:
    name = "agenta-batch"

    def send(self, url: str, session: str, history: list[Any]) -> Reply:
        response = agenta_batch(url, session, history)
        if response.status_code != 200:
            return Reply(response.status_code, response.json(), history)
        body = response.json()
        outputs = body["data"]["outputs"]
        reply = Reply(200, outputs, [*history, *outputs["messages"]], stop=outputs.get("stop_reason"))
        reply.trace_ids = [body["trace_id"]]
        for message in outputs["messages"]:
            if message["role"] == "assistant":
                reply.text = message["content"]
            elif message["role"] == "tool" and "input" not in message:
                reply.outcomes[message["tool_call_id"]] = "denied" if message["is_error"] else "output"
        for request in outputs.get("pending_interactions", []):
            if request["kind"] == "user_approval":
                reply.gates[request["payload"]["toolCallId"]] = request["id"]
        return reply

    def first(self, url: str, session: str, text: str) -> Reply:
        return self.send(url, session, [{"role": "user", "content": text}])

    def decide(self, url: str, session: str, paused: Reply, answers: dict[str, bool], **tamper: Any) -> Reply:
        decisions = [
            agenta_decision(c, ok, tamper.get("token", paused.gates[c])) for c, ok in answers.items()
        ]
        history = paused.history
        if "input" in tamper:
            history = [{**m, "input": tamper["input"]} if "input" in m else m for m in history]
        return self.send(url, session, [*history, *decisions])

    def answer(self, url: str, session: str, paused: Reply, text: str) -> Reply:
        return self.send(url, session, [*paused.history, {"role": "user", "content": text}])


class AgentaStream:
    name = "agenta-sse"

    def send(self, url: str, session: str, history: list[Any]) -> Reply:
        status, frames = agenta_frames(url, session, history)
        if status != 200:
            return Reply(status, frames, history)
        reply = Reply(200, frames, history)
        texts: dict[str, str] = {}
        for frame in frames:
            kind, data = frame["type"], frame["data"]
            if kind == "message_delta":
                texts[data["id"]] = texts.get(data["id"], "") + data["delta"]
            elif kind == "tool_result":
                reply.outcomes[data["id"]] = "denied" if data.get("denied") else "output"
            elif kind == "interaction_request" and data["kind"] == "user_approval":
                reply.gates[data["payload"]["toolCallId"]] = data["id"]
            elif kind == "done":
                reply.stop = data["stopReason"]
                reply.trace_ids = [data["traceId"]]
        reply.text = list(texts.values())[-1] if texts else ""
        return reply

    def first(self, url: str, session: str, text: str) -> Reply:
        return self.send(url, session, [{"role": "user", "content": text}])

    def decide(self, url: str, session: str, paused: Reply, answers: dict[str, bool], **tamper: Any) -> Reply:
        message = agenta_replay(paused.body, answers)
        for block in message["content"]:
            if block["type"] == "tool_result" and "token" in tamper:
                block["output"]["interactionToken"] = tamper["token"]
            if block["type"] == "tool_call" and "input" in tamper:
                block["input"] = tamper["input"]
        return self.send(url, session, [*paused.history, message])

    def answer(self, url: str, session: str, paused: Reply, text: str) -> Reply:
        said = {"role": "assistant", "content": paused.text}
        return self.send(url, session, [*paused.history, said, {"role": "user", "content": text}])


class VercelStream:
    name = "vercel-sse"

    def post(self, url: str, session: str, messages: list[Any]) -> tuple[int, Any]:
        return vercel_chunks(url, session, messages)

    def send(self, url: str, session: str, history: list[Any]) -> Reply:
        status, chunks = self.post(url, session, history)
        if status != 200:
            return Reply(status, chunks, history)
        reply = Reply(200, chunks, history)
        texts: dict[str, str] = {}
        for chunk in chunks[:-1]:
            kind = chunk["type"]
            if kind == "start":
                reply.message_id = chunk.get("messageId")
            elif kind == "text-delta":
                texts[chunk["id"]] = texts.get(chunk["id"], "") + chunk["delta"]
            elif kind == "tool-output-available":
                reply.outcomes[chunk["toolCallId"]] = "output"
            elif kind == "tool-output-denied":
                reply.outcomes[chunk["toolCallId"]] = "denied"
            elif kind == "tool-approval-request":
                reply.gates[chunk["toolCallId"]] = chunk["approvalId"]
            elif kind == "finish":
                reply.stop = chunk.get("finishReason")
                reply.trace_ids = [chunk["messageMetadata"]["traceId"]]
        reply.text = list(texts.values())[-1] if texts else ""
        return reply

    def first(self, url: str, session: str, text: str) -> Reply:
        return self.send(url, session, [user(text)])

    def decide(self, url: str, session: str, paused: Reply, answers: dict[str, bool], **tamper: Any) -> Reply:
        message = ui_assistant(paused.body, answers)
        for part in message["parts"]:
            if part.get("state") == "approval-responded":
                if "token" in tamper:
                    part["approval"]["id"] = tamper["token"]
                if "input" in tamper:
                    part["input"] = tamper["input"]
        return self.send(url, session, [*paused.history, message])

    def answer(self, url: str, session: str, paused: Reply, text: str) -> Reply:
        return self.send(url, session, [*paused.history, ui_assistant(paused.body), user(text, "u2")])


class UseChat(VercelStream):
    """``POST /chat`` with the body ``DefaultChatTransport`` sends."""

    name = "chat"

    def post(self, url: str, session: str, messages: list[Any]) -> tuple[int, Any]:
        last = messages[-1]
        body = {"id": session, "messages": messages, "trigger": "submit-message"}
        if last["role"] == "assistant":
            body["messageId"] = last["id"]
        return chat_chunks(url, body)


FLOWS = [AgentaBatch(), AgentaStream(), VercelStream(), UseChat()]
