"""Two servers on one PostgreSQL and one Redis: concurrent turns on every door, a silent turn
followed from the other server, and a server SIGKILLed mid-turn. What each client saw, what the
store and Redis hold afterwards, and that the survivors go on without a restart."""

from __future__ import annotations

import time
import uuid

from fault_agents import word
from fault_servers import (
    Seen,
    agui_body,
    chat_body,
    in_thread,
    invoke_body,
    markers,
    openai_body,
    stored,
    stream,
    wait_for,
)
from pair import Node, agent_texts, live_keys, open_rows, registered

from restartable import PostgresProcess, RedisProcess


def start_turn(node: Node, door: int, session: str, text: str, seen: Seen):  # type: ignore[no-untyped-def]
    """One streamed turn of ``paced`` on door ``door`` (0 Agenta, 1 Vercel, 2 AG-UI, 3 OpenAI)."""
    if door == 0:
        return in_thread(
            stream, "POST", node.url + "/agents/paced/invoke", seen, json=invoke_body(session, text)
        )
    if door == 1:
        return in_thread(stream, "POST", node.url + "/agents/paced/chat", seen, json=chat_body(session, text))
    if door == 2:
        return in_thread(stream, "POST", node.url + "/agents/paced/agui", seen, json=agui_body(session, text))
    headers = {"x-ag-session-id": session}
    return in_thread(
        stream,
        "POST",
        node.url + "/v1/chat/completions",
        seen,
        json=openai_body("paced", text),
        headers=headers,
    )


def test_concurrent_turns_on_every_door_complete_and_are_stored_once(
    pair: tuple[Node, Node], fault_pg: PostgresProcess, fault_redis: RedisProcess
) -> None:
    a, b = pair
    words = 30
    expected = "".join(word(i) for i in range(words))
    turns = []
    for i in range(16):
        session, seen = f"every-{i}-{uuid.uuid4().hex[:8]}", Seen()
        turns.append((session, seen, start_turn((a, b)[i % 2], i % 4, session, f"{words} 0.03", seen)))
    for _, _, thread in turns:
        thread.join(60)
    for session, seen, _ in turns:
        assert (seen.status, seen.ended, seen.text()) == (200, "complete", expected), session
        assert agent_texts(a.url, session) == [expected]  # stored once, whole, read from either
    assert open_rows(fault_pg) == {"in_progress": 0, "open_turns": 0}
    wait_for(lambda: not live_keys(fault_redis), 5, "no session left live in Redis")


def test_a_silent_turn_is_followed_from_the_other_server_to_its_end(
    pair: tuple[Node, Node], fault_redis: RedisProcess
) -> None:
    # Before: the follower's blocking read was cut by the Redis client's 5 s socket timeout.
    a, b = pair
    chat = f"quiet-{uuid.uuid4().hex}"
    own, resumed = Seen(), Seen()
    first = in_thread(stream, "POST", a.url + "/agents/quiet/chat", own, json=chat_body(chat, "7"))
    wait_for(lambda: "before" in own.text(), 10, "the turn started")
    wait_for(lambda: registered(fault_redis, chat), 5, "the turn registered in Redis")
    stream("GET", b.url + f"/agents/quiet/chat/{chat}/stream", resumed)
    first.join(20)
    assert (own.ended, own.text()) == ("complete", "before after")
    assert (resumed.status, resumed.ended, resumed.text()) == (200, "complete", "before after")


def test_the_next_message_on_the_other_server_plans_with_the_previous_turn(pair: tuple[Node, Node]) -> None:
    a, b = pair
    for _ in range(5):
        chat = f"next-{uuid.uuid4().hex}"
        first = Seen()
        stream("POST", a.url + "/agents/steps/chat", first, json=chat_body(chat, "0 0"))
        assert first.ended == "complete"
        # At once on the other server, with the whole conversation as the AI SDK sends it.
        answer = {"id": "a1", "role": "assistant", "parts": [{"type": "text", "text": "step 0"}]}
        body = chat_body(chat, "0 0", "u2")
        body["messages"] = [chat_body(chat, "0 0")["messages"][0], answer, *body["messages"]]
        second = Seen()
        stream("POST", b.url + "/agents/steps/chat", second, json=body)
        assert second.ended == "complete"
        texts = [m["content"].get("content") for m in stored(a.url, chat) if m["content"]["type"] == "text"]
        assert texts == ["0 0", "step 0", "0 0", "step 0"]  # nothing stored twice, nothing missing


def test_a_killed_server_s_turn_ends_for_its_followers_and_is_repaired(
    pair: tuple[Node, Node], fault_pg: PostgresProcess, fault_redis: RedisProcess
) -> None:
    a, b = pair
    chat = f"killed-{uuid.uuid4().hex}"
    own, follower = Seen(), Seen()
    first = in_thread(stream, "POST", a.url + "/agents/paced/chat", own, json=chat_body(chat, "3000 0.01"))
    wait_for(lambda: len(own.text()) > 50, 10, "the turn streams")
    wait_for(lambda: registered(fault_redis, chat), 5, "the turn registered in Redis")
    resumed = in_thread(stream, "GET", b.url + f"/agents/paced/chat/{chat}/stream", follower)
    wait_for(lambda: len(follower.text()) > 50, 10, "the follower reads")
    a.kill()
    killed_at = time.monotonic()
    first.join(10)
    resumed.join(30)
    assert own.ended == "died"  # its own server died: nothing more to say to it
    # The follower's server lives: its stream ends with the format's error frame, never cut.
    assert follower.ended == "error", follower.frames[-3:]
    lost_after = time.monotonic() - killed_at
    assert own.text().startswith(follower.text()[: len(own.text())]) or follower.text().startswith(own.text())
    # The turn is not live any more: stop says it is not running, resume has nothing.
    r = b.post(f"/agents/paced/chat/{chat}/stop")
    assert r.status_code == 200 and r.json()["stopped"] is False
    assert b.get(f"/agents/paced/chat/{chat}/stream").status_code == 204
    assert not [k for k in live_keys(fault_redis) if chat.encode() in k]
    # The survivor's lease repair marks the cut message interrupted; nothing stays open.
    wait_for(lambda: markers(stored(b.url, chat)), 15, "the cut message marked interrupted")
    cut = agent_texts(b.url, chat)
    assert len(cut) == 1 and follower.text().startswith(cut[0])
    wait_for(lambda: open_rows(fault_pg)["in_progress"] == 0, 10, "nothing IN_PROGRESS")
    a.start()
    # Both serve again.
    for node in (a, b):
        again = Seen()
        stream("POST", node.url + "/agents/paced/invoke", again, json=invoke_body(uuid.uuid4().hex, "3 0"))
        assert again.ended == "complete"
    print(f"follower told of the loss {lost_after:.1f} s after the kill")
