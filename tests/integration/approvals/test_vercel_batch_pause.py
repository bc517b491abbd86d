"""A paused turn asked for as Vercel batch JSON shows its gate the way the stream does: the tool part
``approval-requested`` with the approval id to answer with — and answering it from there works."""

from __future__ import annotations

import httpx
from approvals_server import Server

HEADERS = {"accept": "application/json", "x-ag-messages-format": "vercel"}
USER = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "delete notes.txt"}]}


def _post(server: Server, session: str, messages: list[dict], **headers: str) -> dict:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    r = httpx.post(f"{server.url}/invoke", json=body, headers={**HEADERS, **headers}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["data"]["outputs"]


def test_a_paused_vercel_batch_turn_can_be_answered_from_its_own_output(warm: Server) -> None:
    outputs = _post(warm, "vb-1", [USER])
    assert outputs["stop_reason"] == "paused"
    (assistant,) = outputs["messages"]
    (part,) = [p for p in assistant["parts"] if p["type"].startswith("tool-")]
    assert part["state"] == "approval-requested"
    assert part["approval"]["id"] == outputs["pending_interaction"]["id"]

    # The client records the decision on that very part and sends the message back.
    part["state"] = "approval-responded"
    part["approval"]["approved"] = True
    resumed = _post(warm, "vb-1", [USER, assistant])
    assert resumed["stop_reason"] == "end_turn"
    (final,) = resumed["messages"]
    texts = [p["text"] for p in final["parts"] if p["type"] == "text"]
    assert texts == ["Deleted notes.txt."]
    tool = next(p for p in final["parts"] if p["type"].startswith("tool-"))
    assert tool["state"] == "output-available"


def test_an_ai_sdk_5_client_gets_a_paused_batch_turn_in_states_it_knows(warm: Server) -> None:
    outputs = _post(warm, "vb-2", [USER], **{"x-ai-sdk-version": "5"})
    (assistant,) = outputs["messages"]
    (part,) = [p for p in assistant["parts"] if p["type"].startswith("tool-")]
    assert part["state"] == "input-available" and "approval" not in part
    assert outputs["pending_interaction"]["kind"] == "user_approval"  # the gate is still named
