"""The messages an AG-UI client holds after a run: AG-UI events applied to its message list.

What ``@ag-ui/client`` builds from the events it receives (protocol behaviour, restated):

- ``RUN_STARTED``: the messages of its ``input`` the list lacks (by id) are added;
- ``TEXT_MESSAGE_START`` / ``REASONING_MESSAGE_START`` add a message with that id unless one is
  held; ``…_CONTENT`` appends its delta to that message's content;
- ``TOOL_CALL_START``: the call joins the assistant message ``parentMessageId`` names, else a new
  assistant message under that id (the call's id when the parent is held but is no assistant
  message, or when there is none); ``TOOL_CALL_ARGS`` appends to the call's arguments;
- ``TOOL_CALL_RESULT`` adds a tool message after the assistant message holding the call and the
  tool messages after it (at the end when none holds it);
- ``ACTIVITY_SNAPSHOT`` adds an activity message, or replaces the one with that id;
- a message a ``…_START``, ``TOOL_CALL_START`` (the assistant message it opens),
  ``TOOL_CALL_RESULT`` or ``ACTIVITY_SNAPSHOT`` adds takes that event's ``subagentRunId``.

A batch answer in AG-UI form (``turn.render_turn``) is the run's stream so applied: the very
messages a streaming client holds, which the stored conversation reads back.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

AgUiMessage = dict[str, Any]


def assembled(events: Iterable[dict[str, Any]], messages: Iterable[AgUiMessage] = ()) -> list[AgUiMessage]:
    """``messages`` (copied) with ``events`` applied."""
    out = [dict(m) for m in messages]
    by_id: dict[str, AgUiMessage] = {m["id"]: m for m in out if isinstance(m.get("id"), str)}
    calls: dict[str, dict[str, Any]] = {}
    holders: dict[str, AgUiMessage] = {}
    for message in out:
        if message.get("role") == "assistant" and message.get("toolCalls"):
            message["toolCalls"] = [dict(c, function=dict(c["function"])) for c in message["toolCalls"]]
            for call in message["toolCalls"]:
                calls[call["id"]] = call
                holders[call["id"]] = message
    for event in events:
        kind = event.get("type")
        if kind == "RUN_STARTED":
            for message in (event.get("input") or {}).get("messages") or ():
                if message["id"] not in by_id:
                    by_id[message["id"]] = message = dict(message)
                    out.append(message)
        elif kind in ("TEXT_MESSAGE_START", "REASONING_MESSAGE_START"):
            message_id = event["messageId"]
            if message_id not in by_id:
                role = "reasoning" if kind == "REASONING_MESSAGE_START" else event.get("role", "assistant")
                by_id[message_id] = message = _owned({"id": message_id, "role": role, "content": ""}, event)
                out.append(message)
        elif kind in ("TEXT_MESSAGE_CONTENT", "REASONING_MESSAGE_CONTENT"):
            target = by_id.get(event["messageId"])
            if target is not None:
                target["content"] = (target.get("content") or "") + event["delta"]
        elif kind == "TOOL_CALL_START":
            _start_call(event, out, by_id, calls, holders)
        elif kind == "TOOL_CALL_ARGS":
            call = calls.get(event["toolCallId"])
            if call is not None:
                call["function"]["arguments"] += event["delta"]
        elif kind == "TOOL_CALL_RESULT":
            _add_result(event, out, by_id, holders)
        elif kind == "ACTIVITY_SNAPSHOT":
            activity = _owned(
                {
                    "id": event["messageId"],
                    "role": "activity",
                    "activityType": event["activityType"],
                    "content": event["content"],
                },
                event,
            )
            held = by_id.get(activity["id"])
            if held is None:
                out.append(activity)
            elif event.get("replace", True):
                out[out.index(held)] = activity
            else:
                continue
            by_id[activity["id"]] = activity
    return out


def _start_call(
    event: dict[str, Any],
    out: list[AgUiMessage],
    by_id: dict[str, AgUiMessage],
    calls: dict[str, dict[str, Any]],
    holders: dict[str, AgUiMessage],
) -> None:
    call_id, parent_id = event["toolCallId"], event.get("parentMessageId")
    if call_id in calls:
        calls[call_id]["function"]["name"] = event["toolCallName"]
        return
    parent = by_id.get(parent_id) if parent_id else None
    if parent is None or parent["role"] != "assistant":
        new_id = parent_id if parent_id and parent is None else call_id
        parent = _owned({"id": new_id, "role": "assistant", "toolCalls": []}, event)
        by_id[new_id] = parent
        out.append(parent)
    call = {"id": call_id, "type": "function", "function": {"name": event["toolCallName"], "arguments": ""}}
    parent.setdefault("toolCalls", []).append(call)
    calls[call_id] = call
    holders[call_id] = parent


def _add_result(
    event: dict[str, Any],
    out: list[AgUiMessage],
    by_id: dict[str, AgUiMessage],
    holders: dict[str, AgUiMessage],
) -> None:
    message = _owned(
        {
            "id": event["messageId"],
            "role": event.get("role") or "tool",
            "toolCallId": event["toolCallId"],
            "content": event["content"],
        },
        event,
    )
    holder = holders.get(event["toolCallId"])
    at = len(out)
    if holder is not None:
        at = out.index(holder) + 1
        while at < len(out) and out[at]["role"] == "tool":
            at += 1
    out.insert(at, message)
    by_id.setdefault(message["id"], message)


def _owned(message: AgUiMessage, event: dict[str, Any]) -> AgUiMessage:
    if event.get("subagentRunId") is not None:
        message["subagentRunId"] = event["subagentRunId"]
    return message
