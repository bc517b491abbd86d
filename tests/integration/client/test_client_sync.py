"""turnwire.client against a real server: every format and transport, approvals, user input,
history, cancellation and refused requests."""

from __future__ import annotations

import uuid

import pytest

from turnwire.client import Client, ClientError
from turnwire.model import (
    InteractionRequest,
    MessageDelta,
    TextBlock,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
)

COMBOS = [
    ("agenta", "sse"),
    ("agenta", "ndjson"),
    ("agenta", "batch"),
    ("vercel", "sse"),
    ("vercel", "batch"),
]


def _texts(turn) -> list[str]:  # type: ignore[no-untyped-def]
    return [
        b.text for m in turn.messages for b in m.content if isinstance(b, TextBlock) and m.role == "assistant"
    ]


def _sid() -> str:
    return f"client-{uuid.uuid4().hex[:10]}"


@pytest.mark.parametrize(("fmt", "transport"), COMBOS)
def test_a_tool_turn_streams_events_and_folds(server_url: str, fmt: str, transport: str) -> None:
    with Client(server_url, format=fmt, transport=transport) as client:  # type: ignore[arg-type]
        turn = client.send("weather in Paris")
        events = list(turn)
        result = turn.result()
    assert result.stop_reason == "end_turn"
    assert _texts(result)[-1] == "It is sunny and 21 °C in Paris."
    calls = [b for m in result.messages for b in m.content if isinstance(b, ToolCallBlock)]
    assert [(c.name, c.input) for c in calls] == [("get_weather", {"city": "Paris"})]
    if transport != "batch":
        assert any(isinstance(e, ToolCall) for e in events) and any(isinstance(e, ToolResult) for e in events)
        assert sum(isinstance(e, MessageDelta) for e in events) > 1  # the reply came in pieces


@pytest.mark.parametrize(("fmt", "transport"), COMBOS)
def test_approve_and_deny(server_url: str, fmt: str, transport: str) -> None:
    with Client(server_url, format=fmt, transport=transport) as client:  # type: ignore[arg-type]
        session = client.session(_sid())
        turn = session.send("delete notes.txt")
        assert turn.stop_reason == "paused"
        [request] = turn.pending
        assert isinstance(request, InteractionRequest) and request.kind == "user_approval"
        assert request.payload["toolName"] == "delete_file"
        approved = turn.approve()
        assert _texts(approved.result())[-1] == "Deleted notes.txt."
        outputs = [
            b.output for m in approved.result().messages for b in m.content if isinstance(b, ToolResultBlock)
        ]
        assert outputs and outputs[0] in ("notes.txt deleted", {"path": "notes.txt", "deleted": True})

        again = session.send("delete keep.txt")
        denied = again.deny(reason="keep it")
        assert _texts(denied.result())[-1] == "I did not delete keep.txt."
        assert denied.pending == []


def test_two_approvals_decided_separately(server_url: str) -> None:
    with Client(server_url) as client:
        turn = client.session(_sid()).send("delete a.txt and b.txt")
        first, second = turn.pending
        done = turn.decide({first.id: True, second.id: False})
        assert _texts(done.result())[-1] == "Deleted a.txt. I did not delete b.txt."


@pytest.mark.parametrize("fmt", ["agenta", "vercel"])
def test_user_input_is_answered_with_the_next_message(server_url: str, fmt: str) -> None:
    with Client(server_url, format=fmt) as client:  # type: ignore[arg-type]
        turn = client.session(_sid()).send("ask me")
        assert [r.kind for r in turn.pending] == ["user_input"]
        answered = turn.answer("purple")
        assert _texts(answered.result())[-1] == "You answered: purple"
        with pytest.raises(ValueError, match="not waiting for user input"):
            answered.answer("again")
        with pytest.raises(ValueError, match="not waiting for an approval"):
            answered.approve()


@pytest.mark.parametrize("fmt", ["agenta", "vercel"])
def test_the_stored_history_matches_the_client_and_resumes(server_url: str, fmt: str) -> None:
    sid = _sid()
    with Client(server_url, format=fmt) as client:  # type: ignore[arg-type]
        session = client.session(sid)
        session.send("hello there").result()
        session.send("delete notes.txt").approve().result()
        stored = client.history(sid)
        users = [b.text for m in stored for b in m.content if m.role == "user" and isinstance(b, TextBlock)]
        assert users == ["hello there", "delete notes.txt"]
        assert "Deleted notes.txt." in [b.text for m in stored for b in m.content if isinstance(b, TextBlock)]

        resumed = client.session(sid, resume=True)
        assert len(resumed.history) == len(stored)
        turn = resumed.send("and now?")
        assert _texts(turn.result())[-1] == "You said: and now?"
        assert client.history("never-used-" + sid, missing_ok=True) == []


def test_cancel_stops_the_turn_and_the_session_goes_on(server_url: str) -> None:
    with Client(server_url) as client:
        session = client.session(_sid())
        turn = session.send("count to 100000")
        seen = []
        for event in turn:
            seen.append(event)
            if sum(isinstance(e, MessageDelta | ToolCall) or e.type == "message_start" for e in seen) >= 2:
                turn.cancel()
                break
        assert turn.result().stop_reason == "cancelled"
        assert _texts(session.send("still there?").result())[-1] == "You said: still there?"


def test_refused_requests_raise_client_errors(server_url: str) -> None:
    with Client(server_url, agent="ghost") as client, pytest.raises(ClientError) as info:
        client.send("hi")
    assert info.value.status == 404 and "Unknown agent: ghost" in str(info.value)
    with Client(server_url) as client, pytest.raises(ClientError) as info:
        client.send("hi", session_id="bad id with spaces")
    assert info.value.status == 400 and "session" in str(info.value).lower()


def test_a_named_agent(server_url: str) -> None:
    with Client(server_url, agent="demo", format="vercel") as client:
        assert client.agents() == ["demo"]
        assert _texts(client.send("hi").result())[-1] == "You said: hi"


def test_a_refused_turn_leaves_the_history_as_it_was(server_url: str) -> None:
    with Client(server_url) as client:
        session = client.session(_sid())
        session.send("hello").result()
        paused = session.send("delete notes.txt")
        paused.result()
        before = [(m.role, len(m.content)) for m in session.history]
        with pytest.raises(ValueError, match="no pending approval"):
            paused.decide({"ap_not_issued": True})
        assert [(m.role, len(m.content)) for m in session.history] == before
        session.conversation.agent = "ghost"
        with pytest.raises(ClientError):
            session.send("to nobody")
        assert [(m.role, len(m.content)) for m in session.history] == before
        session.conversation.agent = None
        assert _texts(paused.approve().result())[-1] == "Deleted notes.txt."
