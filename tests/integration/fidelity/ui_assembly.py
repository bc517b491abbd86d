"""A UI Message Stream assembled into the UIMessage a chat client holds (the AI SDK's
``processUIMessageStream`` for the chunks turnwire sends), streaming states left out."""

from __future__ import annotations

from typing import Any


def _merge(target: dict[str, Any], metadata: dict[str, Any] | None) -> None:
    for key, value in (metadata or {}).items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge(target[key], value)
        else:
            target[key] = value


def assemble(chunks: list[dict[str, Any]], last: dict[str, Any] | None = None) -> dict[str, Any]:
    """The assistant message after ``chunks``; ``last``: the message a continuation appends to."""
    message: dict[str, Any] = last if last is not None else {"id": "", "role": "assistant", "parts": []}
    parts: list[dict[str, Any]] = message["parts"]
    metadata: dict[str, Any] = message.setdefault("metadata", {})
    texts: dict[str, dict[str, Any]] = {}
    tools = {p["toolCallId"]: p for p in parts if "toolCallId" in p}
    for chunk in chunks:
        kind = chunk["type"]
        if kind == "error":
            break  # the chat client throws at an error chunk and reads no further (not the finish)
        if kind == "start":
            if chunk.get("messageId"):
                message["id"] = chunk["messageId"]
            _merge(metadata, chunk.get("messageMetadata"))
        elif kind == "finish":
            _merge(metadata, chunk.get("messageMetadata"))
        elif kind == "start-step":
            parts.append({"type": "step-start"})
        elif kind in ("text-start", "reasoning-start"):
            part = {"type": kind[:-6], "text": ""}
            if kind == "reasoning-start":
                part["id"] = chunk["id"]
            texts[chunk["id"] + kind[:4]] = part
            parts.append(part)
        elif kind in ("text-delta", "reasoning-delta"):
            texts[chunk["id"] + kind[:4]]["text"] += chunk["delta"]
        elif kind == "tool-input-start":
            part = {"type": f"tool-{chunk['toolName']}", "toolCallId": chunk["toolCallId"]}
            tools[chunk["toolCallId"]] = part
            parts.append(part)
        elif kind == "tool-input-available":
            part = tools.get(chunk["toolCallId"])
            if part is None:
                part = tools[chunk["toolCallId"]] = {
                    "type": f"tool-{chunk['toolName']}",
                    "toolCallId": chunk["toolCallId"],
                }
                parts.append(part)
            part.update(state="input-available", input=chunk["input"])
        elif kind == "tool-approval-request":
            approval = {"id": chunk["approvalId"]}
            tools[chunk["toolCallId"]].update(state="approval-requested", approval=approval)
        elif kind == "tool-output-available":
            tools[chunk["toolCallId"]].update(state="output-available", output=chunk["output"])
        elif kind == "tool-output-error":
            tools[chunk["toolCallId"]].update(state="output-error", errorText=chunk["errorText"])
        elif kind.startswith("data-") and not chunk.get("transient"):
            # Transient data goes to onData only; a part of the same type and id is replaced.
            same = [p for p in parts if "id" in chunk and p["type"] == kind and p.get("id") == chunk["id"]]
            if same:
                same[0]["data"] = chunk["data"]
            else:
                parts.append(dict(chunk))
        elif kind == "file":
            parts.append({"type": "file", "mediaType": chunk["mediaType"], "url": chunk["url"]})
        elif kind in ("source-url", "source-document"):
            # The part is the chunk (an absent title or filename stays absent, as in the client's JSON).
            parts.append({k: v for k, v in chunk.items() if k != "providerMetadata"})
    if not metadata:
        del message["metadata"]
    return message
