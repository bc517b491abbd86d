"""``POST /chat``: the body DefaultChatTransport sends, answered with the UI Message Stream."""

from __future__ import annotations

import httpx
import orjson
from approvals_server import Server
from approvals_wire import chat_chunks, sse_data, ui_assistant, user


def text_of(chunks: list) -> str:
    return "".join(c["delta"] for c in chunks[:-1] if c["type"] == "text-delta")


def test_chat_streams_a_turn_with_the_ui_stream_headers(warm: Server) -> None:
    body = {"id": "chat-plain", "messages": [user("hello")], "trigger": "submit-message"}
    response = httpx.post(
        warm.url + "/chat",
        content=orjson.dumps(body),
        headers={"content-type": "application/json"},
        timeout=10,
    )
    assert response.status_code == 200
    assert response.headers["x-vercel-ai-ui-message-stream"] == "v1"
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["x-ag-session-id"] == "chat-plain"
    chunks = sse_data(response.content)
    assert chunks[0]["type"] == "start" and chunks[0]["messageMetadata"] == {"sessionId": "chat-plain"}
    assert chunks[-2]["type"] == "finish" and chunks[-1] == "[DONE]"
    assert text_of(chunks) == "You said: hello"


def test_named_agent_route_and_unknown_agent(warm: Server) -> None:
    status, chunks = chat_chunks(
        warm.url, {"id": "chat-named", "messages": [user("hi")]}, "/agents/demo/chat"
    )
    assert status == 200 and text_of(chunks) == "You said: hi"
    status, body = chat_chunks(warm.url, {"id": "chat-named", "messages": [user("hi")]}, "/agents/nope/chat")
    assert status == 404 and body == {"detail": "Unknown agent: nope"}


def test_regenerate_answers_again_under_the_regenerated_message_id(warm: Server) -> None:
    first_status, first = chat_chunks(warm.url, {"id": "chat-regen", "messages": [user("hello")]})
    assert first_status == 200
    previous = first[0]["messageId"]
    body = {
        "id": "chat-regen",
        "messages": [user("hello")],
        "trigger": "regenerate-message",
        "messageId": previous,
    }
    status, again = chat_chunks(warm.url, body)
    assert status == 200
    assert again[0]["messageId"] == previous
    assert text_of(again) == "You said: hello"
    # A client that did not trim the regenerated message: it is dropped, not answered.
    assistant = ui_assistant(first)
    status, untrimmed = chat_chunks(warm.url, {**body, "messages": [user("hello"), assistant]})
    assert status == 200 and untrimmed[0]["messageId"] == previous and text_of(untrimmed) == "You said: hello"


def test_regenerating_a_paused_turn_asks_again_with_the_same_token(warm: Server) -> None:
    status, first = chat_chunks(warm.url, {"id": "chat-regen-gate", "messages": [user("delete x.txt")]})
    assert status == 200
    approvals = [c for c in first[:-1] if c["type"] == "tool-approval-request"]
    body = {"id": "chat-regen-gate", "messages": [user("delete x.txt")], "trigger": "regenerate-message"}
    status, again = chat_chunks(warm.url, body)
    assert status == 200
    assert [c for c in again[:-1] if c["type"] == "tool-approval-request"] == approvals


def test_a_first_turn_gets_a_fresh_message_id_and_a_continuation_reuses_it(warm: Server) -> None:
    status, first = chat_chunks(warm.url, {"id": "chat-cont", "messages": [user("delete y.txt")]})
    assert status == 200
    message_id = first[0]["messageId"]
    assert message_id.startswith("msg-")
    assistant = ui_assistant(first, {"call_1": False})
    body = {"id": "chat-cont", "messages": [user("delete y.txt"), assistant], "messageId": message_id}
    status, second = chat_chunks(warm.url, {**body, "trigger": "submit-message"})
    assert status == 200 and second[0]["messageId"] == message_id
    assert [c["type"] for c in second[:-1] if c["type"].startswith("tool-")] == ["tool-output-denied"]
    assert text_of(second) == "I did not delete y.txt."


def test_bad_bodies_are_refused_with_the_field_named(warm: Server) -> None:
    cases = [
        (b"not json", 400, ["body"]),
        (b"[]", 422, ["body"]),
        (orjson.dumps({"id": "a b", "messages": []}), 400, ["body", "id"]),
        (orjson.dumps({"id": "ok", "messages": [], "trigger": "resume"}), 422, ["body", "trigger"]),
        (orjson.dumps({"id": "ok", "messages": {"role": "user"}}), 422, ["body", "messages"]),
        (
            orjson.dumps({"id": "ok", "messages": [{"role": "user", "parts": "x"}]}),
            422,
            ["body", "messages", 0, "parts"],
        ),
    ]
    for raw, status, loc in cases:
        response = httpx.post(
            warm.url + "/chat", content=raw, headers={"content-type": "application/json"}, timeout=10
        )
        assert response.status_code == status, (raw, response.text)
        assert response.json()["detail"][0]["loc"] == loc, raw
