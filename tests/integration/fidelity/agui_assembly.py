"""AG-UI events → messages, the way ``@ag-ui/client``'s ``defaultApplyEvents`` builds them.

Rules read from the client (typescript-sdk/packages/client, ``apply/default``):

- ``TEXT_MESSAGE_START`` adds ``{id, role (default assistant), content: ""}`` unless a message with
  that id exists; ``TEXT_MESSAGE_CONTENT`` appends its delta to the message with that id.
- ``TOOL_CALL_START``: a known call id only renames; else the call joins the assistant message
  whose id is ``parentMessageId``, or a new assistant message (id ``parentMessageId``, or the call
  id when there is no parent or the parent is not an assistant message); ``TOOL_CALL_ARGS``
  appends to the arguments of the call.
- ``TOOL_CALL_RESULT`` adds ``{id, toolCallId, role: "tool", content}`` after the assistant
  message holding the call and the tool messages already following it (at the end if none).
- ``REASONING_MESSAGE_START`` / ``CONTENT``: a ``reasoning`` message, like text.
- ``ACTIVITY_SNAPSHOT`` adds (or replaces) an ``activity`` message; ``CUSTOM`` and steps add none.
- ``RUN_STARTED`` adds the messages of its ``input`` the client does not hold (by id).
"""

from __future__ import annotations

from typing import Any


def _by_id(messages: list[dict[str, Any]], message_id: str) -> dict[str, Any] | None:
    return next((m for m in messages if m["id"] == message_id), None)


def _holding_call(messages: list[dict[str, Any]], call_id: str) -> int:
    for i, m in enumerate(messages):
        if any(c["id"] == call_id for c in m.get("toolCalls") or ()):
            return i
    return -1


def apply_events(messages: list[dict[str, Any]], events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` (the run's input) with ``events`` applied; a new list."""
    out = [dict(m) for m in messages]
    for event in events:
        kind = event["type"]
        if kind == "RUN_STARTED":
            for message in (event.get("input") or {}).get("messages") or ():
                if _by_id(out, message["id"]) is None:
                    out.append(dict(message))
        elif kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            if _by_id(out, event["messageId"]) is None:
                role = "reasoning" if kind.startswith("REASONING") else event.get("role", "assistant")
                out.append({"id": event["messageId"], "role": role, "content": ""})
        elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            target = _by_id(out, event["messageId"])
            assert target is not None, f"{kind} for an unknown message: {event}"
            target["content"] = (target.get("content") or "") + event["delta"]
        elif kind == "TOOL_CALL_START":
            call_id, parent_id = event["toolCallId"], event.get("parentMessageId")
            if (i := _holding_call(out, call_id)) >= 0:
                known = next(c for c in out[i]["toolCalls"] if c["id"] == call_id)
                known["function"]["name"] = event["toolCallName"]
                continue
            parent = _by_id(out, parent_id) if parent_id else None
            if parent is None or parent["role"] != "assistant":
                new_id = call_id if parent is not None or not parent_id else parent_id
                parent = {"id": new_id, "role": "assistant", "toolCalls": []}
                out.append(parent)
            function = {"name": event["toolCallName"], "arguments": ""}
            call = {"id": call_id, "type": "function", "function": function}
            parent.setdefault("toolCalls", []).append(call)
        elif kind == "TOOL_CALL_ARGS":
            i = _holding_call(out, event["toolCallId"])
            assert i >= 0, f"TOOL_CALL_ARGS for an unknown call: {event}"
            call = next(c for c in out[i]["toolCalls"] if c["id"] == event["toolCallId"])
            call["function"]["arguments"] += event["delta"]
        elif kind == "TOOL_CALL_RESULT":
            message = {
                "id": event["messageId"],
                "toolCallId": event["toolCallId"],
                "role": event.get("role") or "tool",
                "content": event["content"],
            }
            i = _holding_call(out, event["toolCallId"])
            if i < 0:
                out.append(message)
            else:
                at = i + 1
                while at < len(out) and out[at]["role"] == "tool":
                    at += 1
                out.insert(at, message)
        elif kind == "ACTIVITY_SNAPSHOT":
            activity = {
                "id": event["messageId"],
                "role": "activity",
                "activityType": event["activityType"],
                "content": event["content"],
            }
            existing = _by_id(out, event["messageId"])
            if existing is None:
                out.append(activity)
            elif event.get("replace", True):
                out[out.index(existing)] = activity
    return out
