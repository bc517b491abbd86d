"""After turns on every door, every stored content is an Agentex content and nothing more; the
notes are beside it, and the conversations read back as the previous release read its own.

The allowed keys are the Agentex ``TaskMessageContent`` fields (the published schema, see
/work/shared/reference/agentex-api.md 1.2), not turnwire's normaliser.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import httpx
import orjson
from door_turns import SESSIONS, play_all, reads

from store_databases import execute

COMMON = {"type", "author", "style"}
AGENTEX_FIELDS = {
    "text": COMMON | {"content", "format", "attachments"},
    "reasoning": COMMON | {"summary", "content"},
    "data": COMMON | {"data"},
    "tool_request": COMMON | {"tool_call_id", "name", "arguments"},
    "tool_response": COMMON | {"tool_call_id", "name", "content", "is_error"},
}
PREVIOUS: dict[str, dict[str, Any]] = orjson.loads(
    (Path(__file__).parents[2] / "fixtures" / "previous_release" / "previous_reads.json").read_bytes()
)


def test_no_stored_content_holds_a_key_its_agentex_type_does_not_define(server: str, db_url: str) -> None:
    sessions = play_all(server)
    [rows, tasks] = asyncio.run(
        execute(db_url, "SELECT task_id, content, note FROM messages", "SELECT id, name FROM tasks")
    )
    names = dict(tasks)
    assert {names[task] for task, _, _ in rows} == set(sessions)  # every door wrote
    for task, text, _ in rows:
        content = orjson.loads(text)
        extra = set(content) - AGENTEX_FIELDS[content["type"]]
        assert not extra, (names[task], content)
    # What the store knows about them is beside them: the turns' messages and the client's ids.
    notes = [orjson.loads(note) for _, _, note in rows if note]
    assert any(note.get("message_id") == "u1" for note in notes)  # /chat's own message id
    assert any("turn" in note and "usage" in note for note in notes)


_VOLATILE = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"  # task ids
    r"|\d{4}-\d\d-\d\dT[0-9:.]+(?:\+00:00|Z)?"  # timestamps
    r"|ap_[A-Za-z0-9_-]{20,}|chatcmpl-[A-Za-z0-9]+"  # approval tokens, completion ids
    r"|\b[0-9a-f]{16,32}\b"  # message, trace and run ids
)


def _stable(value: Any, session: str, name: str) -> str:
    """``value`` as JSON with ids, tokens and timestamps replaced by their order of appearance (and
    the session's name by the fixture's)."""
    seen: dict[str, str] = {}
    text = orjson.dumps(value).decode().replace(session, name)
    return _VOLATILE.sub(lambda m: seen.setdefault(m.group(0), f"<{len(seen)}>"), text)


def test_the_same_sessions_read_back_as_the_previous_release_read_its_own(server: str) -> None:
    """The fixture's sessions played again: the same conversations in every format, but for the
    ids, tokens and timestamps every run picks anew."""
    for name, play in SESSIONS.items():
        session = f"again-{name}"
        play(server, session)
        now = reads(server, session)
        for fmt, answer in PREVIOUS[name].items():
            assert _stable(now[fmt], session, name) == _stable(answer, name, name), (name, fmt)


def test_the_responses_and_a2a_doors_store_agentex_contents_only(server: str, db_url: str) -> None:
    """The two newer doors keep their own records (the response object, the A2A task) in the
    notes too: after a tool turn on each, every stored content is still Agentex's and no more."""
    with httpx.Client(base_url=server, timeout=30) as http:
        answer = http.post("/v1/responses", json={"model": "demo", "input": "weather in Paris"})
        assert answer.status_code == 200 and answer.json()["status"] == "completed"
        message = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "weather in Rome"}]}
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": message}}
        sent = http.post("/a2a", json=rpc, headers={"A2A-Version": "1.0"})
        assert sent.status_code == 200 and "result" in sent.json(), sent.text
    [rows] = asyncio.run(execute(db_url, "SELECT content, note FROM messages"))
    types = {orjson.loads(text)["type"] for text, _ in rows}
    assert {"text", "tool_request", "tool_response"} <= types  # both turns ran their tool
    for text, _ in rows:
        content = orjson.loads(text)
        assert not set(content) - AGENTEX_FIELDS[content["type"]], content
    notes = [orjson.loads(note) for _, note in rows if note]
    assert any("response" in note for note in notes)  # the stored response object, beside
