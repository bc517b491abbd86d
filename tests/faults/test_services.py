"""Redis SIGKILLed and started again empty, PostgreSQL restarted, PostgreSQL stopped for seconds —
under two servers with turns streaming. What each client saw, what the store holds, and that
both servers serve again without a restart."""

from __future__ import annotations

import time
import uuid

import httpx
from fault_agents import word
from fault_servers import Seen, chat_body, in_thread, invoke_body, markers, stored, stream, wait_for
from pair import Node, agent_texts, live_keys, open_rows, registered

from restartable import PostgresProcess, RedisProcess

WORDS = 150
WHOLE = "".join(word(i) for i in range(WORDS))


def _streaming(a: Node, b: Node, redis_proc: RedisProcess, count: int) -> list[tuple[str, Seen, Seen, list]]:
    """``count`` Vercel turns of 3 s alternating between the servers, each also followed from the
    other server; (chat id, its own client, its follower, threads)."""
    turns = []
    for i in range(count):
        node, other = (a, b) if i % 2 == 0 else (b, a)
        chat, own, follower = f"svc-{i}-{uuid.uuid4().hex[:8]}", Seen(), Seen()
        threads = [
            in_thread(
                stream, "POST", node.url + "/agents/paced/chat", own, json=chat_body(chat, f"{WORDS} 0.02")
            )
        ]
        wait_for(lambda chat=chat: registered(redis_proc, chat), 10, "the turn registered")
        threads.append(in_thread(stream, "GET", other.url + f"/agents/paced/chat/{chat}/stream", follower))
        turns.append((chat, own, follower, threads))
    return turns


def test_redis_killed_and_restarted_loses_no_turn(
    pair: tuple[Node, Node], fault_pg: PostgresProcess, fault_redis: RedisProcess
) -> None:
    a, b = pair
    turns = _streaming(a, b, fault_redis, 6)
    time.sleep(0.5)
    fault_redis.kill()  # everything Redis held is gone
    time.sleep(1.0)
    fault_redis.start()
    for _, _, _, threads in turns:
        for t in threads:
            t.join(40)
    for chat, own, follower, _ in turns:
        # Its own server needs no Redis to answer: whole.
        assert (own.ended, own.text()) == ("complete", WHOLE), chat
        # A follower reads through Redis: whole (the log was rewritten), or the error frame; never cut.
        assert follower.ended in ("complete", "error"), (chat, follower.ended)
        if follower.ended == "complete":
            assert follower.text() == WHOLE
        assert agent_texts(a.url, chat) == [WHOLE]
    # The first turn on each server after the restart is registered (resume from the other works)
    # and a stop sent through the other server reaches it.
    for node, other in ((a, b), (b, a)):
        chat, own = f"after-{uuid.uuid4().hex}", Seen()
        thread = in_thread(
            stream, "POST", node.url + "/agents/paced/chat", own, json=chat_body(chat, "2000 0.01")
        )
        wait_for(
            lambda chat=chat: registered(fault_redis, chat), 10, "the first turn after the restart registered"
        )
        wait_for(lambda own=own: own.text(), 10, "it streams")
        r = other.post(f"/agents/paced/chat/{chat}/stop")
        assert r.status_code == 200 and r.json()["stopped"] is True
        thread.join(15)
        assert own.ended == "complete" and own.frames[-1]["type"] == "finish"
        assert len(own.text()) < len(word(0)) * 2000  # stopped, not run to its end
    assert open_rows(fault_pg) == {"in_progress": 0, "open_turns": 0}
    wait_for(lambda: not live_keys(fault_redis), 5, "no session left live")


def test_postgresql_restarted_mid_turn_keeps_every_turn(
    pair: tuple[Node, Node], fault_pg: PostgresProcess
) -> None:
    a, b = pair
    turns = []
    for i in range(6):
        session, seen = f"pgr-{i}-{uuid.uuid4().hex[:8]}", Seen()
        node = (a, b)[i % 2]
        turns.append(
            (
                session,
                seen,
                in_thread(
                    stream,
                    "POST",
                    node.url + "/agents/paced/invoke",
                    seen,
                    json=invoke_body(session, f"{WORDS} 0.02"),
                ),
            )
        )
    wait_for(lambda: all(seen.text() for _, seen, _ in turns), 15, "every turn streams")
    fault_pg.stop()  # as a crash: connections cut, then back within a second
    fault_pg.start()
    for _, _, thread in turns:
        thread.join(40)
    for session, seen, _ in turns:
        assert (seen.ended, seen.text()) == ("complete", WHOLE), session
    _serves_again(a, b)
    for session, _, _ in turns:
        assert agent_texts(a.url, session) == [WHOLE], session  # the failed flushes retried at the end
    assert open_rows(fault_pg) == {"in_progress": 0, "open_turns": 0}


def test_postgresql_stopped_answers_503_and_recovers(
    pair: tuple[Node, Node], fault_pg: PostgresProcess
) -> None:
    a, b = pair
    # A turn streaming when PostgreSQL stops, which ends before it is back: its closing write fails.
    session, seen = f"down-{uuid.uuid4().hex}", Seen()
    thread = in_thread(
        stream, "POST", a.url + "/agents/paced/invoke", seen, json=invoke_body(session, "60 0.02")
    )
    wait_for(lambda: len(seen.text()) > 150, 15, "the turn streams, flushed at least once")
    fault_pg.stop()
    try:
        for node in (a, b):
            r = node.post("/agents/paced/invoke", json=invoke_body(uuid.uuid4().hex, "3 0"))
            assert r.status_code == 503 and r.headers["retry-after"], r.text
            assert r.json()["detail"][0]["type"] == "service_unavailable"
            r = node.post("/agents/paced/chat", json=chat_body(uuid.uuid4().hex, "3 0"))
            assert r.status_code == 503 and r.headers["retry-after"]
            r = node.get("/tasks")
            assert r.status_code == 503 and r.headers["retry-after"]
            assert node.get("/health").json() == {"status": "ok"}  # liveness: the process answers
            r = node.get("/health/ready")
            assert r.status_code == 503 and r.headers["retry-after"]
            assert r.json() == {"status": "unavailable", "store": "unreachable", "redis": "ok"}
        thread.join(20)
        time.sleep(1)  # stopped for several seconds
    finally:
        fault_pg.start()
    _serves_again(a, b)
    assert seen.ended in ("complete", "error")  # never cut
    # What the store could not take is not left open: the live server marks it interrupted.
    wait_for(lambda: open_rows(fault_pg) == {"in_progress": 0, "open_turns": 0}, 15, "nothing left open")
    stored_turn = stored(a.url, session)
    assert agent_texts(a.url, session) == [WHOLE[: len(seen.text())]] or markers(stored_turn)


def _serves_again(a: Node, b: Node) -> None:
    """Both servers ready and answering turns again, without a restart (within seconds)."""
    for node in (a, b):
        wait_for(lambda node=node: node.get("/health/ready").status_code == 200, 15, "ready again")
        assert node.get("/health/ready").json() == {"status": "ready", "store": "ok", "redis": "ok"}
        deadline = time.monotonic() + 10
        while True:
            seen = Seen()
            stream("POST", node.url + "/agents/paced/invoke", seen, json=invoke_body(uuid.uuid4().hex, "3 0"))
            if seen.ended == "complete" or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert seen.ended == "complete", seen
        assert httpx.get(node.url + "/tasks", timeout=10).status_code == 200
