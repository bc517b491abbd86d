"""The Vercel batch answer (``/invoke``, ``application/json``) across an approval: the paused answer,
then the continued message, are what the stream's client holds after the same turns and what
``?format=vercel`` reads back — one message under one id, steps, tool input, decision and output,
usage and trace id of the last turn."""

from __future__ import annotations

import copy
import uuid
from typing import Any

import httpx
from fidelity_wire import chat, stored, user
from ui_assembly import assemble

HEADERS = {"accept": "application/json", "x-ag-messages-format": "vercel"}


def _batch(server: str, session: str, messages: list[dict[str, Any]]) -> dict[str, Any]:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    r = httpx.post(f"{server}/agents/demo/invoke", json=body, headers=HEADERS, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["data"]["outputs"]


def _approve(message: dict[str, Any]) -> dict[str, Any]:
    """A copy of the message with its gated call approved, as ``addToolApprovalResponse`` leaves it."""
    parts = []
    for part in copy.deepcopy(message["parts"]):
        if part.get("state") == "approval-requested":
            part = {**part, "state": "approval-responded", "approval": {**part["approval"], "approved": True}}
        parts.append(part)
    return {**copy.deepcopy(message), "parts": parts}


def _unnamed(message: dict[str, Any]) -> dict[str, Any]:
    """The message without what names its conversation and turns (ids, session- and turn-bound
    approval ids)."""
    metadata = {k: v for k, v in message["metadata"].items() if k not in ("sessionId", "traceId")}
    parts = [
        {**p, "approval": {**p["approval"], "id": "…"}} if "approval" in p else p for p in message["parts"]
    ]
    return {"role": message["role"], "parts": parts, "metadata": metadata}


def test_an_approved_batch_turn_is_one_message_as_streamed_and_as_stored(server: str) -> None:
    via_batch, via_chat = f"vb-{uuid.uuid4().hex}", f"vc-{uuid.uuid4().hex}"
    question = user("u1", "delete notes.txt")

    paused = _batch(server, via_batch, [question])
    assert paused["stop_reason"] == "paused"
    (gated,) = paused["messages"]
    assert stored(server, via_batch, "vercel") == [question, gated]
    resumed = _batch(server, via_batch, [question, _approve(gated)])
    (answer,) = resumed["messages"]
    assert answer["id"] == gated["id"]  # the client's message, continued
    assert [p["type"] for p in answer["parts"]] == [
        "step-start",
        "tool-delete_file",
        "step-start",
        "text",
    ]
    tool = answer["parts"][1]
    assert tool["state"] == "output-available" and tool["approval"]["approved"] is True
    assert tool["output"] == {"path": "notes.txt", "deleted": True}
    assert answer["metadata"]["traceId"] != gated["metadata"]["traceId"]
    assert stored(server, via_batch, "vercel") == [question, answer]

    # The same turns through /chat: the client appends the continuation to its message.
    first = assemble(chat(server, {"id": via_chat, "messages": [question]}, "demo"))
    approved = _approve(first)
    chunks = chat(server, {"id": via_chat, "messages": [question, approved]}, "demo")
    streamed = assemble(chunks, last=approved)
    assert _unnamed(gated) == _unnamed(first)
    assert _unnamed(answer) == _unnamed(streamed)
    assert stored(server, via_chat, "vercel") == [question, streamed]


def test_an_input_request_reads_back_as_the_data_part_the_stream_sent(server: str) -> None:
    """``user_input`` streams ``data-input-request{id, data}``: the client keeps it in the message,
    and so do the history and the batch answer of the same turns."""
    via_batch, via_chat = f"vb-{uuid.uuid4().hex}", f"vc-{uuid.uuid4().hex}"
    client: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []
    for n, text in enumerate(["ask me", "bananas"]):
        message = user(f"u{n}", text)
        client.append(message)
        client.append(assemble(chat(server, {"id": via_chat, "messages": client}, "demo")))
        sent.append(message)
        sent.extend(_batch(server, via_batch, sent)["messages"])
        assert _unnamed(sent[-1]) == _unnamed(client[-1])
    request = client[1]["parts"][-1]
    assert request == {
        "type": "data-input-request",
        "id": "input_1",
        "data": {"prompt": "What should I echo?"},
    }
    assert stored(server, via_chat, "vercel") == client
    assert stored(server, via_batch, "vercel") == sent


def test_a_continuation_on_the_stored_history_answers_the_whole_stored_message(server: str) -> None:
    """With ``x-ag-history: stored`` the client sends only its approved message; the answer is
    still that whole message as the history reads it back (no stored request leaks into it)."""
    session = f"vs-{uuid.uuid4().hex}"
    (gated,) = _batch(server, session, [user("u1", "delete notes.txt")])["messages"]
    body = {"session_id": session, "data": {"inputs": {"messages": [_approve(gated)]}}}
    headers = {**HEADERS, "x-ag-history": "stored"}
    r = httpx.post(f"{server}/agents/demo/invoke", json=body, headers=headers, timeout=30)
    assert r.status_code == 200, r.text
    (answer,) = r.json()["data"]["outputs"]["messages"]
    assert [p["type"] for p in answer["parts"]] == ["step-start", "tool-delete_file", "step-start", "text"]
    assert stored(server, session, "vercel")[1:] == [answer]
