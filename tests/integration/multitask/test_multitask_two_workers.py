"""Two ``turnwire serve`` processes on one PostgreSQL + Redis: the first turn streams on one, the
second turn on the same conversation comes to the other. The claim is shared through Redis, so
the strategies hold across workers, and the store holds what each client received."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import pytest
from multitask_doors import Agentex, Chat, Invoke, stored, words
from test_multitask_doors import COUNT, NUMBERS, WEATHER, start_first

from services import turnwire_process
from store_databases import fresh_database

_ids = itertools.count()
pytestmark = [pytest.mark.postgres, pytest.mark.redis]
DOORS = [Chat(), Invoke(), Agentex()]


@pytest.fixture(scope="module")
def workers(
    postgres_url: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    home = tmp_path_factory.mktemp("two-workers")
    db = fresh_database("postgres", home, postgres_url)
    args = ("--db", db, "--redis", redis_url, "--keepalive", "0")
    env = {"TURNWIRE_APPROVAL_SECRET": "two-workers-share-this-secret"}
    (home / "a").mkdir()
    (home / "b").mkdir()
    with (
        turnwire_process(home / "a", *args, env=env) as (url_a, _),
        turnwire_process(home / "b", *args, env=env) as (url_b, _),
    ):
        yield url_a, url_b


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.name)
def test_reject_across_workers(door, workers: tuple[str, str]) -> None:
    a, b = workers
    sid = f"mt2-reject-{door.name}-{next(_ids)}"
    first, thread = start_first(door, a, sid)
    second = door.turn(b, sid, [COUNT, WEATHER])
    thread.join(30)
    status, kind, message = door.refusal(second)
    assert (status, kind) == (409, "turn_running") and "is running turn" in message
    assert first.words == NUMBERS
    assert stored(b, door, sid) == [("user", words(COUNT)), ("assistant", NUMBERS)]


@pytest.mark.parametrize("door", DOORS, ids=lambda d: d.name)
def test_enqueue_across_workers(door, workers: tuple[str, str]) -> None:
    a, b = workers
    sid = f"mt2-enqueue-{door.name}-{next(_ids)}"
    first, thread = start_first(door, a, sid)
    second = door.turn(b, sid, [COUNT, WEATHER], {"x-turnwire-multitask": "enqueue"})
    thread.join(30)
    assert (second.status, second.error) == (200, None)
    assert first.words == NUMBERS
    assert second.words and "Rome" in " ".join(second.words)
    assert stored(a, door, sid) == [
        ("user", words(COUNT)),
        ("assistant", NUMBERS),
        ("user", words(WEATHER)),
        ("assistant", second.words),
    ]


def test_interrupt_across_workers(workers: tuple[str, str]) -> None:
    a, b = workers
    door = Chat()
    sid = f"mt2-interrupt-{next(_ids)}"
    first, thread = start_first(door, a, sid)
    second = door.turn(b, sid, [COUNT, WEATHER], {"x-turnwire-multitask": "interrupt"})
    thread.join(30)
    assert (second.status, second.error) == (200, None)
    cut = first.words
    assert 1 <= len(cut) < len(NUMBERS) and cut == NUMBERS[: len(cut)]
    assert stored(b, door, sid) == [
        ("user", words(COUNT)),
        ("assistant", cut),
        ("user", words(WEATHER)),
        ("assistant", second.words),
    ]
