"""Round trip through the AG-UI door: what ``@ag-ui/client`` holds after each run (its own input
messages plus what it assembled from the events, see ``agui_assembly``) equals the thread read
back with ``?format=agui``: the same messages in the same order, roles, texts, reasoning, tool
calls (ids, names, argument text), tool results, activity messages, the client's own ids.

Ids are compared exactly: the client's own, the tool calls', and those of the messages the runs
produced (named from each turn's stored message id, ``msg-<trace>``, ``msg-<trace>-2``…, on the
stream and in the history alike). One thing is normalised: ``error`` on tool messages —
``TOOL_CALL_RESULT`` has no error field (protocol), so a client never holds one; the history says
it, as ``ToolMessage.error`` allows.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import orjson
from agui_assembly import apply_events
from fidelity_wire import sse_chunks, stored
from generated_turns import turns as _turns
from hypothesis import HealthCheck, given, settings


def agui_run(url: str, body: dict[str, Any], agent: str) -> list[dict[str, Any]]:
    with httpx.stream("POST", f"{url}/agents/{agent}/agui", json=body, timeout=30) as r:
        assert r.status_code == 200, r.read()
        return sse_chunks(r.iter_lines())


@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=_turns)
def test_an_agui_thread_reads_back_as_the_client_assembled_it(server: str, turns: list[list[Any]]) -> None:
    thread = f"rt-agui-{uuid.uuid4().hex}"
    client: list[dict[str, Any]] = []
    for n, steps in enumerate(turns):
        client.append({"id": f"user-{n}", "role": "user", "content": orjson.dumps(steps).decode()})
        body = {
            "threadId": thread,
            "runId": f"run-{n}",
            # prepareRunAgentInput: the client sends every message but its activity messages
            "messages": [m for m in client if m["role"] != "activity"],
            "tools": [],
            "context": [],
            "state": {},
            "forwardedProps": {},
        }
        events = agui_run(server, body, "scripted")
        assert events[-1]["type"] == "RUN_FINISHED", events
        client = apply_events(client, events)
    assert _normalised(stored(server, thread, "agui")) == _normalised(client)


def _normalised(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Without ``error`` (module docstring)."""
    return [{k: v for k, v in message.items() if k != "error"} for message in messages]
