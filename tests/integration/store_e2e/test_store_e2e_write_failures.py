"""A store write that fails during a turn: retried when it may pass, told when it does not.

A real app on loopback with a real SQLite store whose ``write_flush`` (every write a streamed turn
makes) and ``create_messages`` (a batch turn's one write) are made to fail: a few times with
SQLite's "database is locked" (transient: the recorder retries, the turn is stored whole and the
answer ends normally), for good with a disk error (not transient: no retry), or locked forever
(retried a bounded time, then given up). A turn that was not stored must not end like a stored
one: a stream ends with its format's error frame saying so, a batch answer is an error.
"""

from __future__ import annotations

import itertools
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from services import serve_app
from turnwire.conversations.write_retry import RETRY_DELAYS
from turnwire.server import Settings, create_app

_ids = itertools.count()
NOT_STORED = "the turn was not stored"


@dataclass
class Faults:
    """What the next writes do: ``failures`` more of them raise ``error`` (``-1``: all do)."""

    failures: int = 0
    error: Exception | None = None
    calls: int = 0


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Faults]]:
    home: Path = tmp_path_factory.mktemp("write-failures")
    settings = Settings(
        db_url=f"sqlite:///{home / 'store.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
        flush_seconds=0.05,
    )
    app = create_app(default_agent="demo", settings=settings)
    faults = Faults()
    with serve_app(app) as url:
        store = app.state.turnwire.store
        real = store.write_flush

        async def write_flush(task_id: str, new: Any, changed: Any) -> None:
            faults.calls += 1
            if faults.failures:
                faults.failures -= 1 if faults.failures > 0 else 0
                assert faults.error is not None
                raise faults.error
            await real(task_id, new, changed)

        async def create_messages(task_id: str, contents: Any, **kw: Any) -> Any:
            faults.calls += 1
            if faults.failures:
                faults.failures -= 1 if faults.failures > 0 else 0
                assert faults.error is not None
                raise faults.error
            return await real_create(task_id, contents, **kw)

        real_create = store.create_messages
        store.write_flush = write_flush
        store.create_messages = create_messages  # a batch turn's one write
        yield url, faults
        faults.failures = 0


@pytest.fixture
def faults(served: tuple[str, Faults]) -> Iterator[Faults]:
    _, state = served
    yield state
    state.failures, state.error, state.calls = 0, None, 0


def agenta_stream(url: str, session: str, text: str) -> tuple[httpx.Response, list[dict]]:
    body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    response = httpx.post(f"{url}/invoke", json=body, headers={"accept": "text/event-stream"}, timeout=30)
    frames = [orjson.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    return response, frames


def chat_stream(url: str, session: str, text: str) -> tuple[httpx.Response, list[Any]]:
    body = {
        "id": session,
        "trigger": "submit-message",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}],
    }
    response = httpx.post(f"{url}/chat", json=body, timeout=30)
    chunks = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    return response, [c if c == "[DONE]" else orjson.loads(c) for c in chunks]


def stored(url: str, task_id: str) -> list[dict]:
    query = {"task_id": task_id, "limit": 100, "order_direction": "asc"}
    return httpx.get(f"{url}/messages", params=query, timeout=10).json()


def texts(messages: list[dict]) -> list[str]:
    return [m["content"].get("content") for m in messages if m["content"].get("type") == "text"]


def test_a_write_that_fails_a_few_times_is_retried_and_the_turn_stored(
    served: tuple[str, Faults], faults: Faults
) -> None:
    url, _ = served
    faults.failures, faults.error = 3, sqlite3.OperationalError("database is locked")
    response, frames = agenta_stream(url, f"retried-{next(_ids)}", "count to 5")
    assert response.status_code == 200
    assert [f["type"] for f in frames if f["type"] in ("error", "done")] == ["done"]
    assert frames[-1]["data"]["stopReason"] == "end_turn"
    messages = stored(url, response.headers["x-ag-task-id"])
    assert texts(messages) == ["count to 5", "1", "2", "3", "4", "5"]
    assert {m["streaming_status"] for m in messages} == {"DONE"}
    assert faults.failures == 0


@pytest.mark.parametrize("door", ["agenta", "chat"])
def test_a_turn_that_cannot_be_stored_ends_with_the_formats_error_frame(
    served: tuple[str, Faults], faults: Faults, door: str
) -> None:
    url, _ = served
    faults.failures, faults.error = -1, sqlite3.DatabaseError("database disk image is malformed")
    session = f"lost-{door}-{next(_ids)}"
    started = time.monotonic()
    if door == "agenta":
        response, frames = agenta_stream(url, session, "hello there")
        tail = frames[-2:]
        assert [f["type"] for f in tail] == ["error", "done"], frames
        assert NOT_STORED in tail[0]["data"]["message"] and tail[1]["data"]["stopReason"] == "error"
        assert "request id" in tail[0]["data"]["message"]
    else:
        response, chunks = chat_stream(url, session, "hello there")
        errors = [c for c in chunks if isinstance(c, dict) and c["type"] == "error"]
        assert errors and NOT_STORED in errors[-1]["errorText"], chunks
        assert chunks[-1] == "[DONE]"
    assert response.status_code == 200
    assert faults.calls <= 3  # not transient: no retries (a mid-turn flush, then the last one)
    assert time.monotonic() - started < 5
    # Nothing of the turn is in the store, as the client was told.
    faults.failures = 0
    assert texts(stored(url, response.headers["x-ag-task-id"])) == []


def test_a_store_locked_for_good_is_given_up_in_bounded_time(
    served: tuple[str, Faults], faults: Faults
) -> None:
    url, _ = served
    faults.failures, faults.error = -1, sqlite3.OperationalError("database is locked")
    started = time.monotonic()
    _, frames = agenta_stream(url, f"locked-{next(_ids)}", "hello there")
    elapsed = time.monotonic() - started
    assert frames[-2]["type"] == "error" and NOT_STORED in frames[-2]["data"]["message"]
    assert sum(RETRY_DELAYS) <= elapsed < sum(RETRY_DELAYS) + 5
    assert faults.calls >= len(RETRY_DELAYS) + 1


def invoke_batch(url: str, session: str, text: str) -> httpx.Response:
    body = {"session_id": session, "data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    return httpx.post(f"{url}/invoke", json=body, timeout=30)


def test_a_batch_turn_is_retried_and_stored(served: tuple[str, Faults], faults: Faults) -> None:
    url, _ = served
    faults.failures, faults.error = 2, sqlite3.OperationalError("database is locked")
    response = invoke_batch(url, f"batch-retried-{next(_ids)}", "hello there")
    assert response.status_code == 200, response.text
    assert texts(stored(url, response.headers["x-ag-task-id"])) == ["hello there", "You said: hello there"]


def test_a_batch_turn_that_cannot_be_stored_is_not_answered_as_success(
    served: tuple[str, Faults], faults: Faults
) -> None:
    url, _ = served
    faults.failures, faults.error = -1, sqlite3.DatabaseError("database disk image is malformed")
    response = invoke_batch(url, f"batch-lost-{next(_ids)}", "hello there")
    assert response.status_code == 500
    body = response.json()
    assert body["request_id"] == response.headers["x-request-id"] and "malformed" not in response.text

    rpc = {
        "method": "message/send",
        "params": {
            "task_name": f"rpc-lost-{next(_ids)}",
            "content": {"type": "text", "author": "user", "content": "hi"},
        },
    }
    reply = httpx.post(f"{url}/agents/name/demo/rpc", json=rpc, timeout=30).json()
    assert reply["result"] is None and reply["error"]["code"] == -32603
