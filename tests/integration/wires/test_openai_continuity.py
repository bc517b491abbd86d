"""Stateless Chat Completions clients (Open WebUI, LibreChat) resend the whole conversation and
name no session: a request whose earlier messages are a stored conversation of the same tenant
continues it, on the real ``openai`` client, batch and streamed. What the agent did that the client
never saw (the tools it ran itself) stays in the stored conversation."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import OpenAI

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_app


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("continuity")
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{home / 'turnwire.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
        api_keys="ann:key-ann-0123456789ab,bob:key-bob-0123456789ab",
    )
    with serve_app(create_app(builtin_agents(), settings=settings), lifespan="on") as base:
        yield base


BOB = "key-bob-0123456789ab"


def client(url: str, key: str = "key-ann-0123456789ab") -> OpenAI:
    return OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=20)


def ask(openai: OpenAI, messages: list[dict[str, Any]], stream: bool) -> tuple[str, str]:
    """The answer's text and its session, as the client sees them."""
    if stream:
        with openai.chat.completions.with_streaming_response.create(
            model="demo", messages=messages, stream=True
        ) as response:
            session = response.headers["x-ag-session-id"]
            text = "".join(c.choices[0].delta.content or "" for c in response.parse() if c.choices)
        return text, session
    raw = openai.chat.completions.with_raw_response.create(model="demo", messages=messages)
    return raw.parse().choices[0].message.content or "", raw.headers["x-ag-session-id"]


def stored(url: str, session: str, key: str = "key-ann-0123456789ab") -> list[dict[str, Any]]:
    r = httpx.get(
        f"{url}/tasks/{session}/messages",
        params={"format": "openai"},
        headers={"authorization": f"Bearer {key}"},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    return r.json()["messages"]


def user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


@pytest.mark.parametrize("stream", [False, True], ids=["batch", "stream"])
def test_a_resent_conversation_continues_its_session(url: str, stream: bool) -> None:
    openai = client(url)
    city = f"Town{uuid.uuid4().hex[:6]}"
    messages = [{"role": "system", "content": "Be brief."}, user(f"weather in {city}")]
    first, session = ask(openai, messages, stream)
    assert first == f"It is sunny and 21 °C in {city}."
    messages += [{"role": "assistant", "content": first}, user("thanks")]
    second, again = ask(openai, messages, stream)
    assert second == "You said: thanks"
    assert again == session
    messages += [{"role": "assistant", "content": second}, user("bye")]
    third, still = ask(openai, messages, stream)
    assert (third, still) == ("You said: bye", session)

    history = stored(url, session)
    # One conversation, each message once, with the tool the agent ran (the client never saw it).
    said = [(m["role"], m.get("content")) for m in history if m["role"] != "tool"]
    assert [s for s in said if s[1]] == [
        ("system", "Be brief."),
        ("user", f"weather in {city}"),
        ("assistant", first),
        ("user", "thanks"),
        ("assistant", second),
        ("user", "bye"),
        ("assistant", third),
    ]
    calls = [c["function"]["name"] for m in history for c in m.get("tool_calls") or ()]
    assert calls == ["get_weather"]


def test_another_tenant_resending_the_same_conversation_gets_its_own(url: str) -> None:
    text = f"hello {uuid.uuid4().hex[:6]}"
    first, ann_session = ask(client(url), [user(text)], False)
    resent = [user(text), {"role": "assistant", "content": first}, user("again")]
    _, bob_session = ask(client(url, BOB), resent, False)
    assert bob_session != ann_session
    assert [m["content"] for m in stored(url, bob_session, BOB)] == [text, first, "again", "You said: again"]
    assert len(stored(url, ann_session)) == 2  # ann's conversation is untouched


def test_a_changed_history_is_a_new_conversation(url: str) -> None:
    text = f"hello {uuid.uuid4().hex[:6]}"
    first, session = ask(client(url), [user(text)], False)
    edited = [user(text), {"role": "assistant", "content": first + " (edited)"}, user("next")]
    _, other = ask(client(url), edited, False)
    assert other != session
    assert len(stored(url, session)) == 2


def test_a_named_session_still_wins(url: str) -> None:
    text = f"hello {uuid.uuid4().hex[:6]}"
    openai = client(url)
    first, session = ask(openai, [user(text)], False)
    mine = f"mine-{uuid.uuid4().hex[:6]}"
    raw = openai.chat.completions.with_raw_response.create(
        model="demo",
        messages=[user(text), {"role": "assistant", "content": first}, user("next")],
        extra_headers={"x-ag-session-id": mine},
    )
    assert raw.headers["x-ag-session-id"] == mine != session
    assert len(stored(url, session)) == 2


def test_a_failed_turn_is_not_continued(url: str) -> None:
    openai = client(url)
    with pytest.raises(Exception):  # noqa: B017 - the SDK's error for the agent's failure
        openai.chat.completions.create(model="demo", messages=[user("fail")])
    # Nothing was remembered for it: a client resending "fail" + a made-up answer starts afresh.
    resent = [user("fail"), {"role": "assistant", "content": ""}, user("hi")]
    text, session = ask(openai, resent, False)
    assert text == "You said: hi"
    assert [m["role"] for m in stored(url, session)][:1] == ["user"]
