"""One conversation through every front door: started by the real ``ai`` client on ``/chat``,
continued with Agenta frames on ``/invoke``, read back with the official ``agentex-client`` and as
UIMessages, then reloaded into a new useChat and continued — every message once, in order."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from agentex import Agentex

from node_runner import run_node_tests
from services import serve_app
from turnwire.server import Settings, create_app

Anchor = tuple[str, str]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'store.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        keepalive_seconds=0,
    )
    with serve_app(create_app(settings=settings)) as url:
        yield url


def _use_chat(url: str, session: str, mode: str, out: Path) -> list[dict[str, Any]]:
    env = {**os.environ, "SERVER_URL": url, "SESSION_ID": session, "MODE": mode, "OUT_FILE": str(out)}
    run_node_tests("store.test.mjs", env, timeout=120)
    return orjson.loads(out.read_bytes())


def ui_anchors(messages: list[dict[str, Any]]) -> list[Anchor]:
    """What a UIMessage list says: texts by role, tool calls and their results, in order."""
    out: list[Anchor] = []
    for message in messages:
        for part in message["parts"]:
            if part["type"] == "text" and part["text"]:
                out.append((message["role"], part["text"]))
            elif part["type"].startswith("tool-"):
                out.append(("call", part["toolCallId"]))
                if part["state"] == "output-available":
                    out.append(("result", part["toolCallId"]))
    return out


def agentex_anchors(messages: list[Any]) -> list[Anchor]:
    out: list[Anchor] = []
    for m in messages:
        c = m.content
        if c.type == "text":
            out.append(("user" if c.author == "user" else "assistant", c.content))
        elif c.type == "tool_request":
            out.append(("call", c.tool_call_id))
        elif c.type == "tool_response":
            out.append(("result", c.tool_call_id))
    return out


def _sse(body: bytes) -> list[dict[str, Any]]:
    return [orjson.loads(line[6:]) for line in body.split(b"\n") if line.startswith(b"data: ")]


@pytest.mark.node
def test_one_conversation_across_chat_invoke_and_agentex_is_stored_once_in_order(
    server: str, tmp_path: Path
) -> None:
    session = f"e2e-{uuid.uuid4().hex[:12]}"

    # 1. useChat on /chat: two turns, the second with a tool call.
    live = _use_chat(server, session, "start", tmp_path / "live.json")
    expected = ui_anchors(live)
    assert ("user", "hello there") in expected and ("user", "weather in Paris") in expected
    assert any(kind == "result" for kind, _ in expected)

    # 2. Agenta frames on /invoke, same session, the whole history as an Agenta client keeps it.
    history = httpx.get(f"{server}/tasks/{session}/messages", params={"format": "agenta"}).json()["messages"]
    body = {
        "session_id": session,
        "data": {"inputs": {"messages": [*history, {"role": "user", "content": "count to 3"}]}},
    }
    r = httpx.post(f"{server}/invoke", json=body, headers={"accept": "text/event-stream"}, timeout=30)
    assert r.status_code == 200, r.text
    task_id = r.headers["x-ag-task-id"]
    frames = _sse(r.content)
    assert frames[-1]["type"] == "done"
    said: dict[str, str] = {}
    for f in frames:
        if f["type"] == "message_delta":
            said[f["data"]["id"]] = said.get(f["data"]["id"], "") + f["data"]["delta"]
    expected += [("user", "count to 3"), *(("assistant", text) for text in said.values())]
    assert [t for _, t in expected[-3:]] == ["1", "2", "3"]

    # 3. A reload: a new useChat built from the stored Vercel history goes on.
    reloaded = _use_chat(server, session, "reload", tmp_path / "reloaded.json")
    final = ui_anchors(reloaded)
    assert final[: len(expected)] == expected
    assert final[len(expected)] == ("user", "bye now")
    expected = final

    # 4. The official Agentex client reads the same conversation, each message once.
    client = Agentex(base_url=server, api_key="unused", max_retries=0)
    stored = client.messages.list(task_id=task_id, limit=1000, order_direction="asc")
    assert agentex_anchors(stored) == expected
    assert all(m.streaming_status == "DONE" for m in stored)
    assert not [
        m for m in stored if m.content.type == "data" and m.content.data.get("type") == "turnwire.rewind"
    ]
    # ... and so does the Vercel form, which the node side checked with validateUIMessages.
    ui = httpx.get(f"{server}/tasks/{task_id}/messages", params={"format": "vercel"}).json()["messages"]
    assert ui_anchors(ui) == expected
    assert [m["role"] for m in ui] == [m["role"] for m in reloaded]
