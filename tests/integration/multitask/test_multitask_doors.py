"""A second turn on a conversation that is still answering, on every door and each strategy
(SQLite): what each client received is what the store holds afterwards, in order.

``count to 30`` streams for 1.5 s; while it does, the same conversation gets ``weather in Rome``.
- reject (the default): the second is a 409 naming the running turn, nothing of it is stored, the
  first answer is stored whole;
- interrupt: the first stream ends early, the part it delivered is stored, then the second turn;
- enqueue: the second waits, then runs on the stored first answer.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from multitask_doors import DOORS, Door, Received, stored, words

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_app

COUNT = "count to 30"
WEATHER = "weather in Rome"
NUMBERS = [str(n) for n in range(1, 31)]
_ids = itertools.count()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("multitask") / "turns.db"
    settings = Settings(db_url=f"sqlite:///{db}", keepalive_seconds=0)
    with serve_app(create_app(builtin_agents(), default_agent="demo", settings=settings)) as url:
        yield url


@pytest.fixture(params=DOORS, ids=lambda d: d.name)
def door(request: pytest.FixtureRequest) -> Door:
    return request.param


def start_first(door: Door, url: str, sid: str) -> tuple[Received, threading.Thread]:
    """The first turn, streaming in a thread; returns once its first number has arrived."""
    door.prepare(url, sid)
    box: list[Received] = []
    ready = threading.Event()

    def run() -> None:
        got = Received()
        box.append(got)
        ready.set()
        result = door.turn(url, sid, [COUNT], observer=got)
        assert result is got

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(5)
    assert box[0].first_piece.wait(10), "the first turn sent nothing"
    return box[0], thread


def weather_words(url: str, door: Door) -> list[str]:
    """The demo's weather answer, from a conversation of its own."""
    sid = f"mt-ref-{door.name}-{next(_ids)}"
    door.prepare(url, sid)
    return door.turn(url, sid, [WEATHER]).words


def test_a_second_turn_is_refused_while_the_first_streams(door: Door, server: str) -> None:
    sid = f"mt-reject-{door.name}-{next(_ids)}"
    first, thread = start_first(door, server, sid)
    second = door.turn(server, sid, [COUNT, WEATHER])
    thread.join(30)
    status, kind, message = door.refusal(second)
    assert (status, kind) == (409, "turn_running"), second.error
    assert f"{sid!r} is running turn" in message
    if "x-ag-trace-id" in first.headers:  # every door but Agentex's NDJSON says its trace id
        assert first.headers["x-ag-trace-id"] in message
    assert first.words == NUMBERS
    assert stored(server, door, sid) == [("user", words(COUNT)), ("assistant", NUMBERS)]


def test_the_refusal_waits_for_a_turn_that_already_ended(door: Door, server: str) -> None:
    """Sent right after the first answer ended, the next turn runs: not a 409."""
    sid = f"mt-after-{door.name}-{next(_ids)}"
    door.prepare(server, sid)
    first = door.turn(server, sid, ["count to 3"])
    second = door.turn(server, sid, ["count to 3", "count to 2"])
    assert (first.status, second.status, second.error) == (200, 200, None)
    assert second.words == ["1", "2"]


def test_interrupt_stops_the_first_and_keeps_what_it_sent(door: Door, server: str) -> None:
    sid = f"mt-interrupt-{door.name}-{next(_ids)}"
    first, thread = start_first(door, server, sid)
    second = door.turn(server, sid, [COUNT, WEATHER], {"x-turnwire-multitask": "interrupt"})
    thread.join(30)
    assert (second.status, second.error) == (200, None)
    assert first.done.is_set()
    cut = first.words
    assert 1 <= len(cut) < len(NUMBERS) and cut == NUMBERS[: len(cut)]
    assert second.words == weather_words(server, door)
    assert stored(server, door, sid) == [
        ("user", words(COUNT)),
        ("assistant", cut),
        ("user", words(WEATHER)),
        ("assistant", second.words),
    ]


def test_enqueue_runs_the_second_after_the_first_on_its_stored_answer(door: Door, server: str) -> None:
    sid = f"mt-enqueue-{door.name}-{next(_ids)}"
    first, thread = start_first(door, server, sid)
    second = door.turn(server, sid, [COUNT, WEATHER], {"x-turnwire-multitask": "enqueue"})
    thread.join(30)
    assert (second.status, second.error) == (200, None)
    assert first.words == NUMBERS
    assert second.words == weather_words(server, door)
    assert stored(server, door, sid) == [
        ("user", words(COUNT)),
        ("assistant", NUMBERS),
        ("user", words(WEATHER)),
        ("assistant", second.words),
    ]


def test_a_bad_strategy_is_a_400_naming_the_header(server: str) -> None:
    door = DOORS[0]
    got = door.turn(server, f"mt-bad-{next(_ids)}", [WEATHER], {"x-turnwire-multitask": "rollback"})
    assert got.status == 400
    [error] = got.error["detail"]
    assert error["loc"] == ["header", "x-turnwire-multitask"] and error["type"] == "enum"


def test_the_strategy_can_ride_in_the_body(tmp_path: Path) -> None:
    """``multitask_strategy`` in the /chat body, as the AI SDK's ``body`` option sends it."""
    from multitask_doors import Chat

    settings = Settings(db_url=f"sqlite:///{tmp_path / 'b.db'}", keepalive_seconds=0)
    with serve_app(create_app(builtin_agents(), default_agent="demo", settings=settings)) as url:
        door = Chat()
        sid = f"mt-body-{next(_ids)}"
        first, thread = start_first(door, url, sid)
        second = door.turn(url, sid, [COUNT, WEATHER], body={"multitask_strategy": "enqueue"})
        thread.join(30)
        assert (second.status, first.words) == (200, NUMBERS)
        assert [role for role, _ in stored(url, door, sid)] == ["user", "assistant", "user", "assistant"]


def test_the_server_setting_chooses_the_default(tmp_path: Path) -> None:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'q.db'}", keepalive_seconds=0, multitask="enqueue")
    with serve_app(create_app(builtin_agents(), default_agent="demo", settings=settings)) as url:
        door = DOORS[0]
        sid = f"mt-setting-{next(_ids)}"
        first, thread = start_first(door, url, sid)
        second = door.turn(url, sid, [COUNT, WEATHER])
        thread.join(30)
        assert (second.status, first.words) == (200, NUMBERS)
        assert stored(url, door, sid)[1] == ("assistant", NUMBERS)


@pytest.mark.parametrize("door", [d for d in DOORS if d.name in ("invoke", "agentex")], ids=lambda d: d.name)
def test_a_conversation_paused_on_an_approval_is_not_busy(door: Door, server: str) -> None:
    """The paused turn has ended: the next message runs at once (here without answering it)."""
    sid = f"mt-paused-{door.name}-{next(_ids)}"
    door.prepare(server, sid)
    stored_history = {"x-ag-history": "stored"}  # the client sends only its new message
    paused = door.turn(server, sid, ["delete notes.txt"], stored_history)
    assert (paused.status, paused.error) == (200, None)
    second = door.turn(server, sid, [WEATHER], stored_history)
    assert (second.status, second.error) == (200, None)
    assert "Rome" in " ".join(second.words)
