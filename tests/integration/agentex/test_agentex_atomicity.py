"""Over HTTP on both databases: a failing batch writes nothing; concurrent batches never interleave."""

from __future__ import annotations

import asyncio
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
from agentex_server import Server

from store_databases import FAIL_ON_BOOM, execute


def text(s: str) -> dict:
    return {"type": "text", "author": "user", "content": s}


def new_task(http: httpx.Client) -> str:
    r = http.post(
        "/agents/name/echo/rpc", json={"method": "task/create", "params": {"name": uuid.uuid4().hex}}
    )
    return r.json()["result"]["id"]


def test_database_failure_mid_batch_is_500_and_stores_nothing(server: Server) -> None:
    asyncio.run(execute(server.db_url, *FAIL_ON_BOOM[server.backend]))
    try:
        with server.http() as http:
            task = new_task(http)
            contents = [text("a"), text("b"), text("BOOM"), text("d")]
            r = http.post("/messages/batch", json={"task_id": task, "contents": contents})
            assert r.status_code == 500 and r.json()["code"] == 500
            # Without an Idempotency-Key the official client is told not to retry the create.
            assert r.headers["x-should-retry"] == "false"
            assert http.get("/messages", params={"task_id": task}).json() == []
            ok = http.post("/messages/batch", json={"task_id": task, "contents": [text("a")]})
            assert ok.status_code == 200
    finally:
        asyncio.run(
            execute(
                server.db_url,
                "DROP TRIGGER fail_on_boom" + (" ON messages" if server.backend == "postgres" else ""),
            )
        )


def test_twenty_concurrent_http_batches_keep_a_gap_free_order(server: Server) -> None:
    with server.http() as http:
        task = new_task(http)

        def send(b: int) -> int:
            with server.http() as own:
                body = {"task_id": task, "contents": [text(f"{b}:{i}") for i in range(50)]}
                return own.post("/messages/batch", json=body).status_code

        with ThreadPoolExecutor(20) as pool:
            assert list(pool.map(send, range(20))) == [200] * 20
        rows = http.get("/messages", params={"task_id": task, "limit": 1000, "order_direction": "asc"}).json()
    labels = [r["content"]["content"] for r in rows]
    assert len(labels) == len(set(labels)) == 1000
    for start in range(0, 1000, 50):
        batch = labels[start].split(":")[0]
        assert labels[start : start + 50] == [f"{batch}:{i}" for i in range(50)]
    seqs = asyncio.run(
        execute(server.db_url, f"SELECT seq FROM messages WHERE task_id = '{task}' ORDER BY seq")
    )[0]
    assert [s for (s,) in seqs] == list(range(1000))
