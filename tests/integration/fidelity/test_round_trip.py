"""Round trip = identity, over generated turns: what a client assembled from each door's answer
equals the stored conversation read back in the same format.

- ``/chat`` (UI Message Stream, assembled as the AI SDK does): ``?format=vercel`` equals the
  client's messages (its own user message ids, the stream's message id, steps, reasoning ids,
  tool outputs by the one output rule, data parts, files, metadata).
- ``/invoke`` Vercel batch: each answer is the message the stream's client assembled of the same
  turn, and ``?format=vercel`` equals the batch client's messages (one renderer for both).
- ``/invoke`` Agenta batch: the answers say what ``?format=agenta`` says (texts, calls, results
  in order; the batch's flat shape and the history's block form are both Agenta messages).
- Every door's turn reads back the same in ``agentex`` whatever door wrote it: the stored
  contents of a /chat turn equal those of the same turn through ``/invoke``.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import orjson
from fidelity_wire import chat, stored, user
from generated_turns import turns as _turns
from generated_turns import turns_with_errors
from hypothesis import HealthCheck, given, settings
from ui_assembly import assemble

from turnwire.formats import agenta
from turnwire.model import TextBlock, ToolCallBlock, ToolResultBlock


def _canonical(value: Any) -> bytes:
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=turns_with_errors)
def test_a_chat_reads_back_as_the_client_assembled_it(server: str, turns: list[list[Any]]) -> None:
    chat_id = f"rt-{uuid.uuid4().hex}"
    client: list[dict[str, Any]] = []
    for n, steps in enumerate(turns):
        message = {
            "id": f"user-{n}",
            "role": "user",
            "parts": [{"type": "text", "text": orjson.dumps(steps).decode()}],
        }
        client.append(message)
        chunks = chat(server, {"id": chat_id, "messages": client}, "scripted")
        assert chunks[-1]["type"] == "finish", chunks
        client.append(assemble(chunks))
    assert _canonical(stored(server, chat_id, "vercel")) == _canonical(client)


def _vercel_batch(server: str, session: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    body = {"session_id": session, "data": {"inputs": {"messages": messages}}}
    headers = {"accept": "application/json", "x-ag-messages-format": "vercel"}
    r = httpx.post(f"{server}/agents/scripted/invoke", json=body, headers=headers, timeout=30)
    assert r.status_code in (200, 500), r.text  # 500: the agent reported an error
    assert r.headers["x-ag-messages-format"] == "vercel"
    return r.json()["data"]["outputs"]["messages"]


def _unnamed(message: dict[str, Any]) -> dict[str, Any]:
    """A message without what names its conversation and turn (id, session and trace ids)."""
    metadata = {k: v for k, v in message.get("metadata", {}).items() if k not in ("sessionId", "traceId")}
    return {**{k: v for k, v in message.items() if k not in ("id", "metadata")}, "metadata": metadata}


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=turns_with_errors)
def test_a_vercel_batch_answer_is_the_history_and_the_streamed_message(
    server: str, turns: list[list[Any]]
) -> None:
    """The same turns through /invoke (Vercel, JSON) and through /chat: each batch answer is the
    message the stream's client assembled (but for the conversation's and turn's ids), and the
    batch conversation reads back from ``?format=vercel`` exactly as the client holds it."""
    via_batch, via_chat = f"rt-vb-{uuid.uuid4().hex}", f"rt-vc-{uuid.uuid4().hex}"
    client: list[dict[str, Any]] = []
    for n, steps in enumerate(turns):
        message = user(f"user-{n}", orjson.dumps(steps).decode())
        client.append(message)
        answer = _vercel_batch(server, via_batch, client)
        chunks = chat(server, {"id": via_chat, "message": message}, "scripted")
        streamed = assemble(chunks)
        assert [_unnamed(m) for m in answer] == [_unnamed(streamed)]
        (batch,) = answer
        assert batch["metadata"]["sessionId"] == via_batch
        errored = any(step[0] == "error" for step in steps)  # no finish read: no traceId
        assert ("traceId" in batch["metadata"]) is not errored
        assert batch["id"].startswith("msg-")
        client.extend(answer)
    assert _canonical(stored(server, via_batch, "vercel")) == _canonical(client)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=_turns)
def test_a_turn_is_stored_alike_through_every_door(server: str, turns: list[list[Any]]) -> None:
    """The same turns through /chat and through /invoke (Agenta batch) store the same contents;
    the Agenta batch answers are the conversation's Agenta history."""
    via_chat, via_invoke = f"rt-c-{uuid.uuid4().hex}", f"rt-i-{uuid.uuid4().hex}"
    answers: list[dict[str, Any]] = []
    for n, steps in enumerate(turns):
        text = orjson.dumps(steps).decode()
        chat(
            server,
            {
                "id": via_chat,
                "message": {"id": f"u{n}", "role": "user", "parts": [{"type": "text", "text": text}]},
            },
            "scripted",
        )
        body = {
            "session_id": via_invoke,
            "data": {"inputs": {"messages": [{"role": "user", "content": text}]}},
        }
        r = httpx.post(
            f"{server}/agents/scripted/invoke", json=body, headers={"x-ag-history": "stored"}, timeout=30
        )
        assert r.status_code == 200, r.text
        answers.append({"role": "user", "content": text})
        answers.extend(r.json()["data"]["outputs"]["messages"])

    def contents(key: str) -> list[dict[str, Any]]:
        return [m["content"] for m in stored(server, key, "agentex")]

    assert contents(via_chat) == contents(via_invoke)
    history = stored(server, via_invoke, "agenta")
    assert _said(history) == _said(answers)


def _said(agenta_messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What Agenta messages say, whatever their shape (the batch's flat messages, the history's
    blocks): texts, calls and results in order. Thoughts, data and files are stream frames an
    Agenta batch answer does not carry."""
    out: list[tuple[Any, ...]] = []
    for message in agenta.parse_messages(agenta_messages):
        for block in message.content:
            if isinstance(block, TextBlock) and block.text:
                out.append(("text", message.role == "user", block.text))
            elif isinstance(block, ToolCallBlock):
                out.append(("call", block.id, block.name, block.input))
            elif isinstance(block, ToolResultBlock):
                out.append(("result", block.id, block.output, bool(block.is_error)))
    return out
