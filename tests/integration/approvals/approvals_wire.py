"""Talking to a real server as each client would: requests, stream parsing, replaying a paused turn."""

from __future__ import annotations

from typing import Any

import httpx
import orjson

JSON = {"content-type": "application/json"}
VERCEL = {"x-ag-messages-format": "vercel"}
SSE = {"accept": "text/event-stream"}


def _post(url: str, path: str, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.post(url + path, content=orjson.dumps(body), headers=JSON | (headers or {}), timeout=20)


def sse_data(raw: bytes) -> list[Any]:
    """The decoded ``data:`` payloads of an SSE body (``"[DONE]"`` kept as a string); ``id:`` and
    comment lines skipped."""
    out: list[Any] = []
    for block in raw.split(b"\n\n"):
        for line in block.split(b"\n"):
            if line.startswith(b"data: "):
                data = line[6:]
                out.append("[DONE]" if data == b"[DONE]" else orjson.loads(data))
    return out


# ------------------------------------------------------------------ Agenta


def agenta_batch(url: str, session: str, messages: list[Any]) -> httpx.Response:
    return _post(url, "/invoke", {"session_id": session, "data": {"inputs": {"messages": messages}}})


def agenta_frames(url: str, session: str, messages: list[Any]) -> tuple[int, list[Any]]:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    response = _post(url, "/invoke", body, SSE)
    return response.status_code, sse_data(
        response.content
    ) if response.status_code == 200 else response.json()


def agenta_replay(frames: list[dict[str, Any]], answers: dict[str, bool]) -> dict[str, Any]:
    """The paused assistant message rebuilt from Agenta frames, with a decision on each gated call."""
    blocks: list[dict[str, Any]] = []
    for frame in frames:
        data = frame["data"]
        if frame["type"] == "tool_call":
            blocks.append(
                {
                    "type": "tool_call",
                    "toolCallId": data["id"],
                    "toolName": data["name"],
                    "input": data["input"],
                }
            )
        elif frame["type"] == "interaction_request" and data["kind"] == "user_approval":
            call_id = data["payload"]["toolCallId"]
            output = {"approved": answers[call_id], "interactionToken": data["id"]}
            blocks.append({"type": "tool_result", "toolCallId": call_id, "output": output})
    return {"role": "assistant", "content": blocks}


def agenta_decision(call_id: str, approved: bool, token: str) -> dict[str, Any]:
    """A decision as a flat batch-style tool message (the shape batch outputs use)."""
    return {
        "role": "tool",
        "content": {"approved": approved, "interactionToken": token},
        "tool_call_id": call_id,
    }


# ------------------------------------------------------------------ Vercel


def user(text: str, message_id: str = "u1") -> dict[str, Any]:
    return {"id": message_id, "role": "user", "parts": [{"type": "text", "text": text}]}


def vercel_chunks(url: str, session: str, messages: list[Any]) -> tuple[int, Any]:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    response = _post(url, "/invoke", body, {**SSE, **VERCEL})
    return response.status_code, sse_data(
        response.content
    ) if response.status_code == 200 else response.json()


def chat_chunks(url: str, body: dict[str, Any], path: str = "/chat") -> tuple[int, Any]:
    response = _post(url, path, body)
    return response.status_code, sse_data(
        response.content
    ) if response.status_code == 200 else response.json()


def ui_assistant(chunks: list[Any], answers: dict[str, bool] | None = None) -> dict[str, Any]:
    """The assistant UIMessage a client assembles from ``chunks``, then answers each approval
    (``addToolApprovalResponse``): the tool part goes to ``approval-responded``."""
    message: dict[str, Any] = {"id": "", "role": "assistant", "parts": []}
    tools: dict[str, dict[str, Any]] = {}
    texts: dict[str, dict[str, Any]] = {}
    for chunk in chunks:
        if chunk == "[DONE]":
            continue
        kind = chunk["type"]
        if kind == "start" and chunk.get("messageId"):
            message["id"] = chunk["messageId"]
        elif kind == "start-step":
            message["parts"].append({"type": "step-start"})
        elif kind == "text-start":
            texts[chunk["id"]] = {"type": "text", "text": "", "state": "streaming"}
            message["parts"].append(texts[chunk["id"]])
        elif kind == "text-delta":
            texts[chunk["id"]]["text"] += chunk["delta"]
        elif kind == "text-end":
            texts[chunk["id"]]["state"] = "done"
        elif kind == "tool-input-available":
            part = tools.get(chunk["toolCallId"])
            if part is None:
                part = tools[chunk["toolCallId"]] = {
                    "type": "tool-" + chunk["toolName"],
                    "toolCallId": chunk["toolCallId"],
                }
                message["parts"].append(part)
            part.update(state="input-available", input=chunk["input"])
        elif kind == "tool-approval-request":
            tools[chunk["toolCallId"]].update(
                state="approval-requested", approval={"id": chunk["approvalId"]}
            )
    for call_id, approved in (answers or {}).items():
        part = tools[call_id]
        part["state"] = "approval-responded"
        part["approval"] = {**part["approval"], "approved": approved}
    return message


def normalize(value: Any, *trace_ids: str) -> Any:
    """``value`` as JSON text with the per-turn trace ids blanked, for comparing two runs."""
    text = orjson.dumps(value).decode()
    for trace_id in trace_ids:
        text = text.replace(trace_id, "<trace>")
    return orjson.loads(text)
