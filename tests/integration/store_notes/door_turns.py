"""Turns on every front door of a real server, as each door's client sends them (HTTP only).

Used by the store-notes tests and by ``tests/fixtures/previous_release/make_fixture.py``, which runs
them against the previous release to write the fixture database: so it must keep speaking only
HTTP and importing nothing of turnwire.

Each function plays one session and returns its name; ``SESSIONS`` plays all of them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import orjson

sys.path.insert(0, str(Path(__file__).parents[1] / "approvals"))
from approvals_wire import sse_data, ui_assistant

JSON = {"content-type": "application/json"}
SSE = {"accept": "text/event-stream"}
FORMATS = ("agentex", "agenta", "vercel", "agui", "openai")


def _post(url: str, path: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    r = httpx.post(url + path, content=orjson.dumps(body), headers=JSON | (headers or {}), timeout=30)
    assert r.status_code == 200, (path, r.status_code, r.text)
    return r


def _ui_user(text: str, message_id: str) -> dict[str, Any]:
    return {"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}


def invoke_batch(url: str, session: str) -> str:
    """Agenta ``/invoke`` batch: a tool call without approval, then the whole history again."""
    history: list[Any] = [{"role": "user", "content": "weather in Paris"}]
    body = _post(url, "/invoke", {"session_id": session, "data": {"inputs": {"messages": history}}}).json()
    history += [*body["data"]["outputs"]["messages"], {"role": "user", "content": "count to 3"}]
    _post(url, "/invoke", {"session_id": session, "data": {"inputs": {"messages": history}}})
    return session


def invoke_stream(url: str, session: str) -> str:
    """Agenta ``/invoke`` as SSE: one echoed text."""
    messages = [{"role": "user", "content": "hello stream"}]
    _post(url, "/invoke", {"session_id": session, "data": {"inputs": {"messages": messages}}}, SSE)
    return session


def invoke_vercel(url: str, session: str) -> str:
    """``/invoke`` speaking the Vercel UI message stream."""
    body = {"session_id": session, "data": {"inputs": {"messages": [_ui_user("weather in Oslo", "v1")]}}}
    _post(url, "/invoke", body, {**SSE, "x-ag-messages-format": "vercel"})
    return session


def chat_approval(url: str, session: str) -> str:
    """``/chat`` (``useChat``): a call waiting for approval, approved in the next request."""
    first = [_ui_user("delete notes.txt", "u1")]
    chunks = sse_data(
        _post(url, "/chat", {"id": session, "messages": first, "trigger": "submit-message"}).content
    )
    assistant = ui_assistant(chunks, {"call_1": True})
    body = {
        "id": session,
        "messages": [*first, assistant],
        "trigger": "submit-message",
        "messageId": assistant["id"],
    }
    _post(url, "/chat", body)
    return session


def chat_rewind(url: str, session: str) -> str:
    """``/chat``: two turns, then the client edits its second message (a rewind), then regenerates
    the answer (another rewind)."""
    first = [_ui_user("hello one", "u1")]
    chunks = sse_data(
        _post(url, "/chat", {"id": session, "messages": first, "trigger": "submit-message"}).content
    )
    history = [*first, ui_assistant(chunks), _ui_user("hello two", "u2")]
    chunks = sse_data(
        _post(url, "/chat", {"id": session, "messages": history, "trigger": "submit-message"}).content
    )
    edited = [*history[:2], _ui_user("hello edited", "u3")]
    _post(url, "/chat", {"id": session, "messages": edited, "trigger": "submit-message"})
    _post(url, "/chat", {"id": session, "messages": edited, "trigger": "regenerate-message"})
    return session


def agui(url: str, session: str) -> str:
    """AG-UI ``/agui``: a tool call without approval."""
    messages = [{"id": "a1", "role": "user", "content": "weather in Rome"}]
    _post(
        url, "/agui", {"threadId": session, "runId": "r1", "messages": messages, "tools": [], "context": []}
    )
    return session


def openai(url: str, session: str) -> str:
    """OpenAI ``/v1/chat/completions``, batch then streamed, in one session."""
    headers = {"x-ag-session-id": session}
    messages: list[Any] = [{"role": "user", "content": "hello openai"}]
    answer = _post(url, "/v1/chat/completions", {"model": "demo", "messages": messages}, headers).json()
    messages += [answer["choices"][0]["message"], {"role": "user", "content": "count to 2"}]
    _post(url, "/v1/chat/completions", {"model": "demo", "messages": messages, "stream": True}, headers)
    return session


def agentex(url: str, session: str) -> str:
    """Agentex ``message/send``: a task created by name, one streamed and one batch message."""
    rpc = f"{url}/agents/name/demo/rpc"
    task = _post(rpc, "", {"method": "task/create", "params": {"name": session}}).json()["result"]
    for text, stream in (("hello agentex", True), ("weather in Lima", False)):
        content = {"type": "text", "author": "user", "content": text}
        params = {"task_id": task["id"], "content": content, "stream": stream}
        _post(rpc, "", {"method": "message/send", "params": params})
    return session


SESSIONS: dict[str, Callable[[str, str], str]] = {
    "invoke-batch": invoke_batch,
    "invoke-stream": invoke_stream,
    "invoke-vercel": invoke_vercel,
    "chat-approval": chat_approval,
    "chat-rewind": chat_rewind,
    "agui": agui,
    "openai": openai,
    "agentex": agentex,
}


def play_all(url: str, prefix: str = "") -> list[str]:
    """Every session of ``SESSIONS`` on the server at ``url``; their names."""
    return [play(url, prefix + name) for name, play in SESSIONS.items()]


def reads(url: str, session: str) -> dict[str, Any]:
    """The session's conversation in every format, as ``GET /tasks/{name}/messages`` answers."""
    out = {}
    for fmt in FORMATS:
        r = httpx.get(f"{url}/tasks/{session}/messages", params={"format": fmt}, timeout=30)
        assert r.status_code == 200, (fmt, r.text)
        out[fmt] = r.json()
    return out
