"""`turnwire chat`'s own commands and checks, in a real pseudo-terminal against a real server that
wants API keys: /help, /new, /sessions and /agent stay in the terminal (the store never sees them),
the banner names the agent, and a missing agent or key is refused before the first message."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from pty_terminal import Terminal
from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

KEY = "tw_chat-commands-key"
AUTH = {"authorization": f"Bearer {KEY}"}


async def shout(ctx: TurnContext) -> AsyncIterator[Event]:
    """Says the user's words back in capitals."""
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta=ctx.last_user_text().upper())
    yield MessageEnd(id="m1")


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = Path(tmp_path_factory.mktemp("chat-commands")) / "chat.db"
    agents = {"demo": builtin_agents()["demo"], "shout": shout}
    settings = Settings(db_url=str(db), api_keys=f"acme:{KEY}")
    with serve_app(create_app(agents, default_agent="demo", settings=settings)) as url:
        yield url


def _user_texts(url: str) -> list[str]:
    """Every user message the server stored, over all its conversations."""
    texts: list[str] = []
    for task in httpx.get(f"{url}/tasks", params={"limit": 100}, headers=AUTH, timeout=10).json():
        r = httpx.get(f"{url}/tasks/{task['name']}/messages?format=agenta", headers=AUTH, timeout=10)
        for message in r.json()["messages"]:
            if message["role"] == "user":
                texts.append(message["content"])
    return texts


def test_local_commands_never_reach_the_agent(server_url: str) -> None:
    term = Terminal("chat", server_url, "--session", "cmd-1", env={"TURNWIRE_API_KEY": KEY})
    try:
        term.expect("agent demo · session cmd-1")  # the default agent, by name
        term.expect("you> ")
        term.send("/help\r")
        shown = term.expect("you> ")
        assert "/sessions" in shown and "/agent NAME" in shown and "You said" not in shown
        assert httpx.get(f"{server_url}/tasks/cmd-1/messages", headers=AUTH).status_code == 404

        term.send("hello\r")
        term.expect("You said: hello")
        term.expect("you> ")
        term.send("/sessions\r")
        term.expect("cmd-1")
        term.expect("(this one)")
        term.expect("you> ")

        term.send("/agent\r")
        listed = term.expect("you> ")
        assert "demo (default) (talking to it)" in listed and "shout" in listed
        term.send("/agent ghost\r")
        term.expect("no agent 'ghost' on this server; it serves: demo, shout")
        term.expect("you> ")
        term.send("/agent shout\r")
        term.expect("agent shout · session chat-")
        term.expect("you> ")
        term.send("quiet please\r")
        term.expect("QUIET PLEASE")
        term.expect("you> ")
        term.send("/new\r")
        term.expect("agent shout · session chat-")
        term.expect("you> ")
        term.send("//slash\r")  # a leading // sends the text with one slash
        term.expect("/SLASH")
        term.expect("you> ")
        term.send("/nope\r")
        term.expect("unknown command /nope; /help lists them")
        term.expect("you> ")
        term.send("\x04")
        assert term.wait() == 0
    finally:
        term.kill()
    said = _user_texts(server_url)
    assert sorted(said) == sorted(["hello", "quiet please", "/slash"]), said


def test_a_missing_agent_is_refused_before_the_first_message(server_url: str) -> None:
    term = Terminal("chat", server_url, "--agent", "ghost", "--api-key", KEY)
    try:
        term.expect("turnwire chat: --agent: no agent 'ghost' on this server; it serves: demo, shout")
        assert term.wait() == 2
    finally:
        term.kill()
    assert "you> " not in term.screen


def test_the_api_key_is_asked_for_and_checked(server_url: str) -> None:
    term = Terminal("chat", server_url, env={"TURNWIRE_API_KEY": ""})
    try:
        term.expect("turnwire chat: --api-key: the server needs an API key: pass --api-key KEY")
        assert term.wait() == 2
    finally:
        term.kill()
    term = Terminal("chat", server_url, "--api-key", "tw_wrong")
    try:
        term.expect("turnwire chat: --api-key: the server refused the API key (401)")
        assert term.wait() == 2
    finally:
        term.kill()
    term = Terminal("chat", server_url, "--agent", "shout", "--api-key", KEY)
    try:
        term.expect("agent shout · session chat-")
        term.expect("you> ")
        term.send("key works\r")
        term.expect("KEY WORKS")
        term.expect("you> ")
        term.send("/quit\r")
        assert term.wait() == 0
    finally:
        term.kill()
