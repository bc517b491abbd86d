"""An agent that hard-codes its ids (the README's ``call_1``/``m1``) keeps a correct stored
history turn after turn, on every door; a call id reused within one turn is an error frame."""

from __future__ import annotations

import uuid

import httpx
from fidelity_wire import chat, stored, user


def _tool_parts(messages: list[dict]) -> list[tuple[str, object, object]]:
    return [
        (p["toolCallId"], p["input"], p.get("output"))
        for m in messages
        for p in m["parts"]
        if p["type"].startswith("tool-")
    ]


def test_reused_call_ids_are_renamed_per_conversation_on_chat(server: str) -> None:
    chat_id = f"ids-{uuid.uuid4().hex}"
    first = chat(server, {"id": chat_id, "message": user("u1", "hello there")}, "shout")
    second = chat(server, {"id": chat_id, "message": user("u2", "second turn")}, "shout")
    assert {c["toolCallId"] for c in first if "toolCallId" in c} == {"call_1"}
    assert {c["toolCallId"] for c in second if "toolCallId" in c} == {"call_1~2"}
    assert _tool_parts(stored(server, chat_id, "vercel")) == [
        ("call_1", {"text": "hello there"}, "HELLO THERE"),
        ("call_1~2", {"text": "second turn"}, "SECOND TURN"),
    ]


def test_reused_call_ids_are_renamed_per_conversation_on_invoke(server: str) -> None:
    session = f"ids-{uuid.uuid4().hex}"
    for text in ("one", "two", "three"):
        body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
        r = httpx.post(
            f"{server}/agents/shout/invoke", json=body, headers={"x-ag-history": "stored"}, timeout=30
        )
        assert r.status_code == 200, r.text
    contents = [m["content"] for m in stored(server, session, "agentex")]
    calls = [(c["tool_call_id"], c["arguments"]) for c in contents if c["type"] == "tool_request"]
    results = [(c["tool_call_id"], c["content"]) for c in contents if c["type"] == "tool_response"]
    assert calls == [
        ("call_1", {"text": "one"}),
        ("call_1~2", {"text": "two"}),
        ("call_1~3", {"text": "three"}),
    ]
    assert results == [("call_1", "ONE"), ("call_1~2", "TWO"), ("call_1~3", "THREE")]


def test_a_call_id_reused_within_one_turn_is_an_error_frame(server: str) -> None:
    chunks = chat(server, {"id": f"dup-{uuid.uuid4().hex}", "message": user("u1", "go")}, "twice")
    errors = [c for c in chunks if c["type"] == "error"]
    assert len(errors) == 1 and "'c' was used twice in one turn" in errors[0]["errorText"]
    outputs = [c["output"] for c in chunks if c["type"] == "tool-output-available"]
    assert outputs == ["one"]  # the refused call's result is not sent
    assert "".join(c["delta"] for c in chunks if c["type"] == "text-delta") == "after"
