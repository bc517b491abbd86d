"""The Conversations API over turnwire's sessions, with the real ``openai`` SDK: a conversation is
a session, so one begun on another door continues on ``/v1/responses`` and the other way round."""

from __future__ import annotations

import httpx
import openai
import pytest
from openai import OpenAI


@pytest.fixture
def client(wires_url: str) -> OpenAI:
    return OpenAI(base_url=f"{wires_url}/v1", api_key="unused", max_retries=0, timeout=20)


def test_create_retrieve_items_and_delete(client: OpenAI) -> None:
    made = client.conversations.create(
        metadata={"topic": "demo"}, items=[{"type": "message", "role": "user", "content": "earlier words"}]
    )
    assert made.id.startswith("conv_") and made.metadata == {"topic": "demo"}
    assert client.conversations.retrieve(made.id).id == made.id
    done = client.responses.create(model="demo", input="hello", conversation=made.id)
    assert done.output_text == "You said: hello" and done.conversation is not None
    assert done.conversation.id == made.id
    items = list(client.conversations.items.list(made.id, order="asc"))
    texts = [i.content[0].text for i in items if i.type == "message"]
    assert texts == ["earlier words", "hello", "You said: hello"]
    added = client.conversations.items.create(
        made.id, items=[{"type": "message", "role": "user", "content": "a note"}]
    )
    assert [i.content[0].text for i in added.data] == ["a note"]
    client.conversations.delete(made.id)
    with pytest.raises(openai.NotFoundError):
        client.conversations.retrieve(made.id)


def test_a_chat_session_continues_as_a_conversation_and_back(client: OpenAI, wires_url: str) -> None:
    session = "from-chat-1"
    first = httpx.post(
        f"{wires_url}/v1/chat/completions",
        json={"model": "demo", "messages": [{"role": "user", "content": "started on chat"}]},
        headers={"x-ag-session-id": session},
        timeout=20,
    )
    assert first.status_code == 200
    done = client.responses.create(model="demo", input="continued here", conversation={"id": session})
    assert done.output_text == "You said: continued here"
    texts = [
        i.content[0].text
        for i in client.conversations.items.list(session, order="asc")
        if i.type == "message" and i.role == "user"
    ]
    assert texts == ["started on chat", "continued here"]
    # ... and back on Chat Completions, sending only the new message.
    back = httpx.post(
        f"{wires_url}/v1/chat/completions",
        json={"model": "demo", "messages": [{"role": "user", "content": "back on chat"}]},
        headers={"x-ag-session-id": session, "x-ag-history": "stored"},
        timeout=20,
    )
    assert back.json()["choices"][0]["message"]["content"] == "You said: back on chat"
    later = client.responses.create(model="demo", input="last", previous_response_id=done.id)
    # The latest response is no longer the session's latest turn: a chat turn came after it.
    assert later.output_text == "You said: last"


def test_an_unknown_conversation_is_404(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.conversations.retrieve("conv_nothing")
    with pytest.raises(openai.NotFoundError):
        client.conversations.items.list("conv_nothing").data  # noqa: B018


def test_an_approval_asked_on_chat_completions_is_answered_here(client: OpenAI, wires_url: str) -> None:
    session = "cross-door-approval"
    paused = httpx.post(
        f"{wires_url}/v1/chat/completions",
        json={"model": "demo", "messages": [{"role": "user", "content": "delete cross.txt"}]},
        headers={"x-ag-session-id": session},
        timeout=20,
    ).json()
    (gate,) = paused["choices"][0]["message"]["tool_calls"]
    answer = [{"type": "mcp_approval_response", "approval_request_id": gate["id"], "approve": True}]
    done = client.responses.create(model="demo", input=answer, conversation=session)  # type: ignore[arg-type]
    assert done.output_text == "Deleted cross.txt."
    (ran,) = [item for item in done.output if item.type == "mcp_call"]
    assert ran.approval_request_id == gate["id"] and '"deleted":true' in (ran.output or "")
    with pytest.raises(openai.ConflictError):  # answered once, on whichever door
        client.responses.create(model="demo", input=answer, conversation=session)  # type: ignore[arg-type]


def test_a_turns_sources_are_the_annotations_of_its_text_in_the_items(client: OpenAI, wires_url: str) -> None:
    made = client.conversations.create()
    done = client.responses.create(model="demo", input="sources for tides", conversation=made.id)
    live = [a.model_dump() for i in done.output if i.type == "message" for a in i.content[0].annotations]
    assert [a["type"] for a in live] == ["url_citation", "file_citation"]
    items = list(client.conversations.items.list(made.id, order="asc"))
    (answer,) = [i for i in items if i.type == "message" and i.role == "assistant"]
    assert answer.content[0].text == "Here are 2 sources for tides."
    # The same citations the response carried, on the same text, read from the store.
    assert [a.model_dump() for a in answer.content[0].annotations] == live
    read = httpx.get(f"{wires_url}/tasks/{made.id}/messages", params={"format": "responses"}, timeout=20)
    (text,) = [i for i in read.json()["messages"] if i.get("role") == "assistant"]
    assert text["content"][0]["annotations"] == live
