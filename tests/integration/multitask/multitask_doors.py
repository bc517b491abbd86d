"""Each turn door driven as its own client does, for the multitask tests: a streamed turn whose
received text is collected as it arrives, the shape of a refusal, and the conversation as stored.

A second turn on a conversation is sent the way each client would send it while the first answer
streams: full-history doors send the history they have (the first question, no answer yet, then
the new one); Agentex ``message/send`` sends only the new content.
"""

from __future__ import annotations

import itertools
import re
import threading
from dataclasses import dataclass, field
from typing import Any

import httpx
import orjson

_ids = itertools.count()


@dataclass
class Received:
    """What one client got: status, headers, the text pieces of its stream, or its error body."""

    status: int = 0
    headers: dict[str, str] = field(default_factory=dict)
    pieces: list[str] = field(default_factory=list)
    error: Any = None
    first_piece: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def words(self) -> list[str]:
        return words(" ".join(self.pieces))

    def got(self, piece: str) -> None:
        if piece:
            self.pieces.append(piece)
            self.first_piece.set()


def words(text: str) -> list[str]:
    return re.findall(r"[^\s]+", text)


class Door:
    name = ""
    full_history = True

    def request(self, url: str, sid: str, texts: list[str]) -> tuple[str, dict[str, Any]]:
        raise NotImplementedError

    def pieces(self, line: bytes) -> list[str]:
        """The text one line of the answer carries."""
        raise NotImplementedError

    def prepare(self, url: str, sid: str) -> None:
        """Whatever the door needs before its first turn (Agentex: the task)."""

    def turn(
        self,
        url: str,
        sid: str,
        texts: list[str],
        headers: dict[str, str] | None = None,
        *,
        observer: Received | None = None,
        body: dict[str, object] | None = None,
    ) -> Received:
        """Run a turn (``texts``: the user messages the client sends; ``body``: extra body keys),
        streaming; blocks until it ends. ``observer``: where to collect it (read while it runs)."""
        out = observer or Received()
        path, request = self.request(url, sid, texts if self.full_history else texts[-1:])
        body = {**request, **(body or {})}
        try:
            with httpx.stream("POST", url + path, json=body, headers=headers or {}, timeout=60) as r:
                out.status, out.headers = r.status_code, dict(r.headers)
                if r.status_code != 200:
                    r.read()
                    out.error = r.json()
                    return out
                for line in r.iter_lines():
                    for piece in self.pieces(line.encode() if isinstance(line, str) else line):
                        out.got(piece)
                    if self.rpc_error(line) is not None:
                        out.error = self.rpc_error(line)
        finally:
            out.done.set()
        return out

    def rpc_error(self, line: str | bytes) -> Any:
        return None

    def refusal(self, got: Received) -> tuple[int, str, str]:
        """(HTTP status, error type, message) of a refused turn, read the door's way."""
        [error] = got.error["detail"]
        return got.status, error["type"], error["msg"]

    def task_id(self, url: str, sid: str) -> str:
        return httpx.get(f"{url}/tasks/name/{sid}", timeout=10).json()["id"]


def _sse(line: bytes) -> Any:
    if not line.startswith(b"data: ") or line == b"data: [DONE]":
        return None
    return orjson.loads(line[6:])


class Invoke(Door):
    name = "invoke"

    def request(self, url: str, sid: str, texts: list[str]) -> tuple[str, dict[str, Any]]:
        messages = [{"role": "user", "content": t} for t in texts]
        return "/invoke", {"session_id": sid, "data": {"inputs": {"messages": messages}}}

    def turn(
        self, url: str, sid: str, texts: list[str], headers: dict[str, str] | None = None, **kw: Any
    ) -> Received:
        return super().turn(url, sid, texts, {"accept": "text/event-stream", **(headers or {})}, **kw)

    def pieces(self, line: bytes) -> list[str]:
        frame = _sse(line)
        return [frame["data"]["delta"]] if frame and frame["type"] == "message_delta" else []


class Chat(Door):
    name = "chat"

    def request(self, url: str, sid: str, texts: list[str]) -> tuple[str, dict[str, Any]]:
        messages = [
            {"id": f"u{i}", "role": "user", "parts": [{"type": "text", "text": t}]}
            for i, t in enumerate(texts)
        ]
        return "/chat", {"id": sid, "messages": messages, "trigger": "submit-message"}

    def pieces(self, line: bytes) -> list[str]:
        frame = _sse(line)
        return [frame["delta"]] if frame and frame["type"] == "text-delta" else []


class AgUi(Door):
    name = "agui"

    def request(self, url: str, sid: str, texts: list[str]) -> tuple[str, dict[str, Any]]:
        messages = [{"id": f"u{i}", "role": "user", "content": t} for i, t in enumerate(texts)]
        body = {"threadId": sid, "runId": f"run-{next(_ids)}", "messages": messages}
        return "/agui", {**body, "tools": [], "context": [], "state": {}, "forwardedProps": {}}

    def pieces(self, line: bytes) -> list[str]:
        frame = _sse(line)
        return [frame["delta"]] if frame and frame["type"] == "TEXT_MESSAGE_CONTENT" else []


class OpenAI(Door):
    name = "openai"

    def request(self, url: str, sid: str, texts: list[str]) -> tuple[str, dict[str, Any]]:
        messages = [{"role": "user", "content": t} for t in texts]
        body = {"model": "demo", "stream": True, "messages": messages, "metadata": {"session_id": sid}}
        return "/v1/chat/completions", body

    def pieces(self, line: bytes) -> list[str]:
        frame = _sse(line)
        if not frame or "choices" not in frame:
            return []
        return [c["delta"].get("content") or "" for c in frame["choices"]]

    def refusal(self, got: Received) -> tuple[int, str, str]:
        error = got.error["error"]
        return got.status, error["code"], error["message"]


class Agentex(Door):
    name = "agentex"
    full_history = False

    def prepare(self, url: str, sid: str) -> None:
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": "task/create", "params": {"name": sid}}
        assert httpx.post(f"{url}/agents/name/demo/rpc", json=body, timeout=10).json()["error"] is None

    def request(self, url: str, sid: str, texts: list[str]) -> tuple[str, dict[str, Any]]:
        content = {"type": "text", "author": "user", "content": texts[-1]}
        params = {"task_name": sid, "stream": True, "content": content}
        return "/agents/name/demo/rpc", {
            "jsonrpc": "2.0",
            "id": next(_ids),
            "method": "message/send",
            "params": params,
        }

    def pieces(self, line: bytes) -> list[str]:
        if not line.strip():
            return []
        result = orjson.loads(line).get("result")
        if not isinstance(result, dict):
            return []
        if result["type"] == "delta" and result["delta"].get("type") == "text":
            return [result["delta"]["text_delta"]]
        if result["type"] == "full" and result["content"].get("type") == "text":
            return [result["content"]["content"]]
        return []

    def rpc_error(self, line: str | bytes) -> Any:
        return orjson.loads(line).get("error") if line.strip() else None

    def refusal(self, got: Received) -> tuple[int, str, str]:
        error = got.error
        return error["data"]["status"], error["data"]["type"], error["message"]


class Responses(Door):
    """OpenAI Responses on a named ``conversation``: the server holds the history, a turn sends
    only its new input."""

    name = "responses"
    full_history = False

    def request(self, url: str, sid: str, texts: list[str]) -> tuple[str, dict[str, Any]]:
        return "/v1/responses", {"model": "demo", "input": texts[-1], "stream": True, "conversation": sid}

    def pieces(self, line: bytes) -> list[str]:
        frame = _sse(line)
        return [frame["delta"]] if frame and frame.get("type") == "response.output_text.delta" else []

    def refusal(self, got: Received) -> tuple[int, str, str]:
        error = got.error["error"]
        return got.status, error["code"], error["message"]


DOORS = [Invoke(), Chat(), AgUi(), OpenAI(), Agentex(), Responses()]


def stored(url: str, door: Door, sid: str) -> list[tuple[str, list[str]]]:
    """The stored conversation's texts as (role, words) runs: consecutive messages of one role
    merged, messages without text (tool calls and results) left out."""
    task = door.task_id(url, sid)
    body = httpx.get(f"{url}/tasks/{task}/messages", params={"format": "agenta"}, timeout=10).json()
    runs: list[tuple[str, list[str]]] = []
    for message in body["messages"]:
        content = message["content"]
        if isinstance(content, str):
            text = content
        else:
            text = " ".join(b.get("text", "") for b in content if b.get("type") == "text")
        if message["role"] == "tool" or not words(text):
            continue  # a tool call or its result (the weather's lookup): no text either client read
        if runs and runs[-1][0] == message["role"]:
            runs[-1][1].extend(words(text))
        else:
            runs.append((message["role"], words(text)))
    return runs
