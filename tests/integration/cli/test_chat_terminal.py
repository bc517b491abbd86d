"""`turnwire chat` in a real pseudo-terminal against a real server: it streams, asks approvals
inline, answers user input, stops a turn on Ctrl-C and goes on, leaves on Ctrl-D, and resumes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pty_terminal import Terminal
from services import serve_app
from turnwire.server import Settings, create_app


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = Path(tmp_path_factory.mktemp("chat-store")) / "chat.db"
    with serve_app(create_app(settings=Settings(db_url=str(db)))) as url:
        yield url


def test_a_chat_session_in_a_terminal(server_url: str) -> None:
    term = Terminal("chat", server_url, "--session", "tty-1")
    try:
        term.expect("session tty-1")
        term.expect("you> ")
        term.send("weather in Paris\r")
        shown = term.expect("It is sunny and 21 °C in Paris.")
        assert "tool call: get_weather" in shown and '{"city": "Paris"}' in shown
        assert "result: get_weather" in shown

        term.expect("you> ")
        term.send("delete notes.txt\r")
        term.expect('Approve delete_file {"path": "notes.txt"}? [y/N] ')
        term.send("y\r")
        term.expect("Deleted notes.txt.")

        term.expect("you> ")
        term.send("ask me\r")
        term.expect("What should I echo? > ")
        term.send("blue\r")
        term.expect("You answered: blue")

        term.expect("you> ")
        term.send("count to 100000\r")
        term.expect("\n3 ")
        term.send("\x03")  # Ctrl-C: stops the turn, not the program
        term.expect("(stopped)")
        term.expect("you> ")
        term.send("still here?\r")
        term.expect("You said: still here?")

        term.expect("you> ")
        term.send("\x04")  # Ctrl-D leaves
        term.expect(f"resume with: turnwire chat {server_url} --session tty-1")
        assert term.wait() == 0
    finally:
        term.kill()

    again = Terminal("chat", server_url, "--session", "tty-1")
    try:
        history = again.expect("you> still here?")
        for line in ("you> weather in Paris", "Deleted notes.txt.", "You answered: blue"):
            assert line in history
        again.expect("You said: still here?")
        again.expect("you> ")
        again.send("/quit\r")
        assert again.wait() == 0
    finally:
        again.kill()


def test_vercel_format_denies_inline(server_url: str) -> None:
    term = Terminal("chat", server_url, "--format", "vercel", "--session", "tty-vercel")
    try:
        term.expect("you> ")
        term.send("delete keep.txt\r")
        term.expect('Approve delete_file {"path": "keep.txt"}? [y/N] ')
        term.send("\r")  # the default is no
        term.expect("denied: delete_file")
        term.expect("I did not delete keep.txt.")
        term.expect("you> ")
        term.send("\x04")
        assert term.wait() == 0
    finally:
        term.kill()


@pytest.mark.parametrize("wire", ["agenta", "vercel"])
def test_an_approval_shows_its_tool_call_once(server_url: str, wire: str) -> None:
    term = Terminal("chat", server_url, "--format", wire, "--session", f"tty-once-{wire}")
    try:
        term.expect("you> ")
        term.send("delete once.txt\r")
        shown = term.expect('Approve delete_file {"path": "once.txt"}? [y/N] ')
        assert shown.count("tool call: delete_file") == 1, shown
        term.send("\r")
        term.expect("I did not delete once.txt.")
        term.expect("you> ")
        term.send("\x04")
        assert term.wait() == 0
    finally:
        term.kill()


def test_an_unreachable_server_is_one_line(tmp_path: Path) -> None:
    term = Terminal("chat", "http://127.0.0.1:1")  # a new session: checked before the first prompt
    try:
        term.expect("turnwire chat: cannot reach http://127.0.0.1:1")
        assert term.wait() == 1
    finally:
        term.kill()


def test_a_server_that_stores_nothing_is_resumed_from_the_local_copy(tmp_path: Path) -> None:
    from foreign_agenta import foreign_app

    with serve_app(foreign_app()) as url:
        term = Terminal("chat", url, "--session", "foreign-tty")
        try:
            term.expect("you> ")
            term.send("remove it\r")
            term.expect('Approve rm {"path": "/tmp/x"}? [y/N] ')
            term.send("y\r")
            term.expect("decision seen:")
            term.expect("you> ")
            term.send("\x04")
            assert term.wait() == 0
        finally:
            term.kill()
        again = Terminal("chat", url, "--session", "foreign-tty")
        try:
            shown = again.expect("you> remove it")
            assert "session foreign-tty" in shown
            again.expect("decision seen:")
            again.expect("you> ")
            again.send("\x04")
            assert again.wait() == 0
        finally:
            again.kill()
