"""The A2A door as the cross-door approval test drives it: JSON-RPC ``SendMessage`` on ``/a2a``.

The session is the ``contextId``; a paused turn is a task in ``TASK_STATE_INPUT_REQUIRED`` whose
status message carries the request (its ``interactionToken`` is the gate); the answer is a message
on the same ``taskId`` with a ``data`` part ``{"approved", "interactionToken", "toolCallId"}``. A
refusal is a JSON-RPC error; ``Reply.status`` is 422 for invalid params (a refused decision), 409
for any other A2A error, so the shared assertions read it like an HTTP refusal.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
from approvals_flows import Reply


class A2ASend:
    name = "a2a"

    def __init__(self) -> None:
        self.tasks: dict[str, str] = {}
        """Session (context id) → the id of its paused task."""

    def send(self, url: str, session: str, message: dict[str, Any]) -> Reply:
        message = {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "contextId": session, **message}
        body = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        r = httpx.post(f"{url}/a2a", json=body, timeout=30)
        assert r.status_code == 200, r.text  # A2A errors travel in a 200 JSON-RPC answer
        answer = r.json()
        if "error" in answer:
            error = answer["error"]
            return Reply(422 if error["code"] == -32602 else 409, error, [])
        task = answer["result"]["task"]
        reply = Reply(200, task, [], stop=task["status"]["state"])
        reply.text = "".join(p.get("text", "") for a in task.get("artifacts", []) for p in a["parts"])
        for msg in task.get("history", []):
            for part in msg["parts"]:
                data = part.get("data")
                if (
                    part.get("mediaType", "").endswith("tool-result+json")
                    and data.get("toolName") == "delete_file"
                ):
                    reply.outcomes[data["toolCallId"]] = "output"
                elif part.get("mediaType", "").endswith("tool-result+json") and msg["role"] == "ROLE_AGENT":
                    reply.outcomes[data["toolCallId"]] = "denied"
        status_message = task["status"].get("message") or {}
        for part in status_message.get("parts", []):
            data = part.get("data") or {}
            if data.get("kind") == "user_approval":
                reply.gates[data["toolCallId"]] = data["interactionToken"]
        if reply.gates:
            self.tasks[session] = task["id"]
        return reply

    def first(self, url: str, session: str, text: str) -> Reply:
        return self.send(url, session, {"parts": [{"text": text}]})

    def decide(self, url: str, session: str, paused: Reply, answers: dict[str, bool], **tamper: Any) -> Reply:
        parts = []
        for call_id, approved in answers.items():
            data: dict[str, Any] = {"approved": approved, "toolCallId": call_id}
            token = tamper["token"] if "token" in tamper else paused.gates.get(call_id)
            if token is not None:
                data["interactionToken"] = token
            parts.append({"data": data})
        return self.send(url, session, {"taskId": self.tasks[session], "parts": parts})

    def without_token(self, url: str, session: str, paused: Reply) -> Reply:
        return self.decide(url, session, paused, {"call_1": True}, token=None)

    def error_message(self, body: Any) -> str:
        return body["message"]
