"""Agentex routes on SQLite and PostgreSQL: non-JSON bodies are 415 naming the header, and a real
database failure is a 500 whose body names no exception, SQL, driver message or path, only the
request id it was logged under."""

from __future__ import annotations

import asyncio
import logging
import uuid

import httpx
import orjson
import pytest
from agentex_server import Server

from store_databases import execute
from turnwire.server.doors.agentex.agents import agent_id


def text(s: str) -> dict:
    return {"type": "text", "author": "user", "content": s}


@pytest.fixture
def http(server: Server) -> httpx.Client:
    with server.http() as client:
        yield client


def new_task(http: httpx.Client) -> str:
    r = http.post(
        "/agents/name/echo/rpc", json={"method": "task/create", "params": {"name": uuid.uuid4().hex}}
    )
    return r.json()["result"]["id"]


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_json_routes_refuse_other_content_types_with_415(
    http: httpx.Client, content_type: str | None
) -> None:
    task = new_task(http)
    msg = http.post("/messages", json={"task_id": task, "content": text("x")}).json()
    calls = [
        ("POST", "/messages", {"task_id": task, "content": text("forged")}),
        ("POST", "/messages/batch", {"task_id": task, "contents": [text("forged")]}),
        ("PUT", "/messages/batch", {"task_id": task, "updates": {msg["id"]: text("forged")}}),
        ("PUT", f"/messages/{msg['id']}", {"task_id": task, "content": text("forged")}),
        (
            "POST",
            "/agents/name/echo/rpc",
            {"method": "message/send", "params": {"task_id": task, "content": text("x")}},
        ),
        ("POST", f"/agents/{agent_id('echo')}/rpc", {"method": "task/create", "params": {}}),
    ]
    for method, path, body in calls:
        request = http.build_request(method, path, content=orjson.dumps(body))
        if content_type is not None:
            request.headers["content-type"] = content_type
        r = http.send(request)
        assert r.status_code == 415, (path, r.text)
        assert r.json()["data"][0]["loc"] == ["header", "content-type"]
    # Nothing was written or run.
    stored = http.get("/messages", params={"task_id": task}).json()
    assert [m["content"]["content"] for m in stored] == ["x"]


def _leaks(message: str, server: Server) -> list[str]:
    """Words of an exception class, SQL, a driver or a file path found in ``message``."""
    words = ["Error", "Class", "SELECT", "INSERT", "messages", "sqlalchemy", "asyncpg", "sqlite", "Traceback"]
    return [w for w in [*words, server.db_url.rsplit("/", 1)[-1]] if w in message]


def test_a_database_failure_is_a_500_that_tells_only_the_request_id(
    server: Server, caplog: pytest.LogCaptureFixture
) -> None:
    with server.http() as http:
        task = new_task(http)
        asyncio.run(execute(server.db_url, "ALTER TABLE messages RENAME TO messages_away"))
        try:
            with caplog.at_level(logging.ERROR, logger="turnwire.server"):
                listed = http.get("/messages", params={"task_id": task}, headers={"x-request-id": "trace-1"})
                posted = http.post("/messages", json={"task_id": task, "content": text("x")})
                rpc = http.post(
                    "/agents/name/quiet/rpc",
                    json={
                        "id": 7,
                        "method": "message/send",
                        "params": {"task_id": task, "content": text("x")},
                    },
                )
        finally:
            asyncio.run(execute(server.db_url, "ALTER TABLE messages_away RENAME TO messages"))
    for r in (listed, posted):
        assert r.status_code == 500
        body = r.json()
        assert body["request_id"] == r.headers["x-request-id"] and body["request_id"] in body["message"]
        assert _leaks(body["message"], server) == [], body
        assert set(body) == {"message", "code", "data", "request_id"}
    assert listed.json()["request_id"] == "trace-1"
    assert posted.headers["x-should-retry"] == "false"
    error = rpc.json()["error"]
    assert rpc.status_code == 200 and error["code"] == -32603, rpc.text
    assert (
        error["data"]["request_id"] == rpc.headers["x-request-id"] and _leaks(error["message"], server) == []
    )
    logged = " ".join(rec.getMessage() for rec in caplog.records)
    for r in (listed, posted, rpc):
        assert r.headers["x-request-id"] in logged
