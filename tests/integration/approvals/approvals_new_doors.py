"""The AG-UI and OpenAI-compatible doors as the cross-door approval test drives them.

- ``AgUiRun``: ``POST /agui``; the gate is the interrupt on ``RUN_FINISHED`` (its id carries the
  signed token); the answer is a ``resume`` entry, the client holding the calls the events built.
- ``OpenAIChat``: ``POST /v1/chat/completions`` (batch, session header); the gate is a
  ``turnwire_approval`` tool call (its id is the token); the answer a ``tool`` message for it.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import httpx
from approvals_flows import Reply

from turnwire.formats.agui import split_interrupt_id
from turnwire.formats.agui.interrupts import interrupt_id
from turnwire.formats.openai import APPROVAL_TOOL
from turnwire.model import InteractionRequest

DENIED = "The user denied it."


def _user(text: str) -> dict[str, Any]:
    return {"id": uuid.uuid4().hex, "role": "user", "content": text}


class AgUiRun:
    name = "agui"

    def send(self, url: str, session: str, messages: list[Any], resume: list[Any] | None = None) -> Reply:
        body: dict[str, Any] = {"threadId": session, "runId": uuid.uuid4().hex, "messages": messages}
        if resume is not None:
            body["resume"] = resume
        r = httpx.post(f"{url}/agui", json=body, timeout=30)
        if r.status_code != 200:
            return Reply(r.status_code, r.json(), messages)
        events = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]
        calls: dict[str, dict[str, Any]] = {}
        reply = Reply(200, events, messages)
        for event in events:
            kind = event["type"]
            if kind == "TEXT_MESSAGE_CONTENT":
                reply.text += event["delta"]
            elif kind == "TOOL_CALL_START":
                function = {"name": event["toolCallName"], "arguments": ""}
                calls[event["toolCallId"]] = {
                    "id": event["toolCallId"],
                    "type": "function",
                    "function": function,
                }
            elif kind == "TOOL_CALL_ARGS":
                calls[event["toolCallId"]]["function"]["arguments"] += event["delta"]
            elif kind == "TOOL_CALL_RESULT":
                reply.outcomes[event["toolCallId"]] = "denied" if event["content"] == DENIED else "output"
            elif kind == "RUN_FINISHED" and event["outcome"]["type"] == "interrupt":
                for interrupt in event["outcome"]["interrupts"]:
                    if interrupt["reason"] == "tool_call":  # the gate is the token the id carries
                        reply.gates[interrupt["toolCallId"]] = split_interrupt_id(interrupt["id"])[2]  # type: ignore[index]
        if calls:
            reply.history = [
                *messages,
                {"id": uuid.uuid4().hex, "role": "assistant", "toolCalls": list(calls.values())},
            ]
        return reply

    def first(self, url: str, session: str, text: str) -> Reply:
        return self.send(url, session, [_user(text)])

    def decide(self, url: str, session: str, paused: Reply, answers: dict[str, bool], **tamper: Any) -> Reply:
        resume = []
        for call_id, approved in answers.items():
            token = tamper["token"] if "token" in tamper else paused.gates[call_id]
            interrupt = interrupt_id(InteractionRequest(token or "", "user_approval"), call_id)
            resume.append({"interruptId": interrupt, "status": "resolved", "payload": {"approved": approved}})
        history = paused.history
        if "input" in tamper:
            history = [*history[:-1], _with_arguments(history[-1], tamper["input"])]
        return self.send(url, session, history, resume)

    def without_token(self, url: str, session: str, paused: Reply) -> Reply:
        return self.decide(url, session, paused, {"call_1": True}, token="")

    def error_message(self, body: Any) -> str:
        return body["detail"][0]["msg"]


def _with_arguments(assistant: dict[str, Any], arguments: Any) -> dict[str, Any]:
    calls = [
        {**c, "function": {**c["function"], "arguments": json.dumps(arguments)}}
        for c in assistant["toolCalls"]
    ]
    return {**assistant, "toolCalls": calls}


class OpenAIChat:
    name = "openai"

    def send(self, url: str, session: str, messages: list[Any]) -> Reply:
        r = httpx.post(
            f"{url}/v1/chat/completions",
            json={"model": "demo", "messages": messages},
            headers={"x-ag-session-id": session},
            timeout=30,
        )
        if r.status_code != 200:
            return Reply(r.status_code, r.json(), messages)
        message = r.json()["choices"][0]["message"]
        reply = Reply(
            200, message, [*messages, {k: v for k, v in message.items() if k != "executed_tool_calls"}]
        )
        reply.text = message["content"] or ""
        for executed in message.get("executed_tool_calls", []):
            reply.outcomes[executed["id"]] = "denied" if executed["output"] == DENIED else "output"
        for call in message.get("tool_calls") or []:
            if call["function"]["name"] == APPROVAL_TOOL:
                reply.gates[json.loads(call["function"]["arguments"])["tool_call_id"]] = call["id"]
        return reply

    def first(self, url: str, session: str, text: str) -> Reply:
        return self.send(url, session, [{"role": "user", "content": text}])

    def decide(self, url: str, session: str, paused: Reply, answers: dict[str, bool], **tamper: Any) -> Reply:
        *before, assistant = paused.history
        calls = []
        answers_out = []
        for call in assistant["tool_calls"]:
            asked = json.loads(call["function"]["arguments"])
            approved = answers[asked["tool_call_id"]]
            call_id = tamper.get("token", call["id"])
            if "input" in tamper:
                asked["arguments"] = tamper["input"]
            calls.append(
                {**call, "id": call_id, "function": {"name": APPROVAL_TOOL, "arguments": json.dumps(asked)}}
            )
            answers_out.append(
                {"role": "tool", "tool_call_id": call_id, "content": json.dumps({"approved": approved})}
            )
        return self.send(url, session, [*before, {**assistant, "tool_calls": calls}, *answers_out])

    def without_token(self, url: str, session: str, paused: Reply) -> Reply:
        """A client that answers the gated call itself, without the approval call: no token."""
        call = {
            "id": "call_1",
            "type": "function",
            "function": {"name": "delete_file", "arguments": '{"path": "notes.txt"}'},
        }
        messages = [
            paused.history[0],
            {"role": "assistant", "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "call_1", "content": '{"approved": true}'},
        ]
        return self.send(url, session, messages)

    def error_message(self, body: Any) -> str:
        return body["error"]["message"]
