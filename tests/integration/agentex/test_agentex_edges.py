"""Edge cases of the Agentex API reference (§14), numbered as there, over plain HTTP."""

from __future__ import annotations

import base64
import re
import uuid
from datetime import datetime, timedelta

import httpx
import pytest
from agentex_server import Server


def text(s: str, author: str = "user") -> dict:
    return {"type": "text", "author": author, "content": s}


@pytest.fixture
def http(server: Server) -> httpx.Client:
    with server.http() as client:
        yield client


def new_task(http: httpx.Client) -> str:
    r = http.post(
        "/agents/name/echo/rpc", json={"method": "task/create", "params": {"name": uuid.uuid4().hex}}
    )
    return r.json()["result"]["id"]


def ts(value: str) -> datetime:
    return datetime.fromisoformat(value)


def test_01_create_is_200_with_object_id_and_null_status(http: httpx.Client) -> None:
    r = http.post("/messages", json={"task_id": new_task(http), "content": text("x")})
    assert r.status_code == 200
    assert re.fullmatch(r"[0-9a-f]{24}", r.json()["id"]) and r.json()["streaming_status"] is None


def test_02_created_at_given_sets_updated_at_and_omitted_is_now(http: httpx.Client) -> None:
    task = new_task(http)
    given = http.post(
        "/messages", json={"task_id": task, "content": text("a"), "created_at": "2025-01-01T10:00:00"}
    )
    assert ts(given.json()["created_at"]) == ts("2025-01-01T10:00:00+00:00")  # naive input means UTC
    assert given.json()["updated_at"] == given.json()["created_at"]
    before = datetime.now().astimezone()
    now = http.post("/messages", json={"task_id": task, "content": text("b")}).json()
    assert now["created_at"] == now["updated_at"]
    assert abs(ts(now["created_at"]) - before) < timedelta(seconds=5)


def test_03_missing_task_id_is_422_naming_the_field(http: httpx.Client) -> None:
    r = http.post("/messages", json={"content": text("x")})
    assert r.status_code == 422
    assert r.json()["data"][0]["loc"] == ["body", "task_id"] and r.json()["status_code"] == 10422


def test_04_unknown_task_is_404_item_body(http: httpx.Client) -> None:
    r = http.post("/messages", json={"task_id": "ghost", "content": text("x")})
    assert r.status_code == 404
    assert r.json() == {"message": "Item with id 'ghost' does not exist.", "code": 404, "data": None}
    assert http.post("/messages/batch", json={"task_id": "ghost", "contents": [text("x")]}).status_code == 404


def test_05_defaults_filled_and_author_assistant_rejected(http: httpx.Client) -> None:
    task = new_task(http)
    got = http.post("/messages", json={"task_id": task, "content": text("x")}).json()["content"]
    assert got == {
        "type": "text",
        "author": "user",
        "style": "static",
        "format": "plain",
        "content": "x",
        "attachments": None,
    }
    tool = {"type": "tool_response", "author": "agent", "tool_call_id": "c", "name": "n", "content": 1}
    assert (
        http.post("/messages", json={"task_id": task, "content": tool}).json()["content"]["is_error"] is None
    )
    bad = http.post("/messages", json={"task_id": task, "content": text("x", author="assistant")})
    assert bad.status_code == 422 and bad.json()["status_code"] == 10422
    assert bad.json()["data"][0]["loc"] == ["body", "content", "author"]


def test_06_list_defaults_limits_and_unknown_task(http: httpx.Client) -> None:
    task = new_task(http)
    http.post("/messages/batch", json={"task_id": task, "contents": [text(str(i)) for i in range(60)]})
    page = http.get("/messages", params={"task_id": task}).json()
    assert len(page) == 50 and page[0]["content"]["content"] == "59"
    assert len(http.get("/messages", params={"task_id": task, "limit": 0}).json()) == 50
    assert len(http.get("/messages", params={"task_id": task, "limit": 1000}).json()) == 60
    assert http.get("/messages", params={"task_id": "nobody"}).json() == []


def test_07_and_08_ties_break_by_sequence_and_direction_parsing(http: httpx.Client) -> None:
    task = new_task(http)
    stamp = "2025-01-01T00:00:00+00:00"
    first = http.post("/messages", json={"task_id": task, "content": text("a"), "created_at": stamp}).json()
    second = http.post("/messages", json={"task_id": task, "content": text("b"), "created_at": stamp}).json()
    for direction, expected in (("ASC", "ab"), ("asc", "ab"), ("foo", "ab"), ("desc", "ab")):
        rows = http.get("/messages", params={"task_id": task, "order_direction": direction}).json()
        # Equal created_at: the tiebreak stays ascending whatever the direction (compat).
        assert "".join(r["content"]["content"] for r in rows) == expected
    assert first["id"] < second["id"]


def test_09_page_number_zero_is_400_and_past_end_is_empty(http: httpx.Client) -> None:
    task = new_task(http)
    r = http.get("/messages", params={"task_id": task, "page_number": 0})
    assert r.status_code == 400 and r.json()["code"] == 400
    assert http.get("/messages", params={"task_id": task, "page_number": 9}).json() == []


def test_11_bad_filters_are_400(http: httpx.Client) -> None:
    task = new_task(http)
    for bad in ('{"nonexistent_field":"value"}', '{"streaming_status":"FOO"}', "{not json"):
        r = http.get("/messages", params={"task_id": task, "filters": bad})
        assert r.status_code == 400, bad
    r = http.get("/messages", params={"task_id": task, "filters": "{not json"})
    assert r.json()["message"].startswith("Invalid JSON in filters parameter: ")


def test_13_cursor_inside_a_created_at_tie(http: httpx.Client) -> None:
    task = new_task(http)
    stamp = "2025-01-01T00:00:00+00:00"
    for i in range(5):
        http.post("/messages", json={"task_id": task, "content": text(str(i)), "created_at": stamp})
    seen, cursor = [], None
    while True:
        params = {"task_id": task, "limit": 2} | ({"cursor": cursor} if cursor else {})
        page = http.get("/messages/paginated", params=params).json()
        seen += [m["content"]["content"] for m in page["data"]]
        if not page["has_more"]:
            break
        cursor = page["next_cursor"]
    assert seen == ["0", "1", "2", "3", "4"]


def test_15_garbage_cursor_is_400(http: httpx.Client) -> None:
    task = new_task(http)
    for cursor in ("garbage!!", base64.urlsafe_b64encode(b'{"v":1,"id":"x"}').decode()):
        r = http.get("/messages/paginated", params={"task_id": task, "cursor": cursor})
        assert r.status_code == 400 and r.json()["data"][0]["loc"] == ["query", "cursor"]


def test_16_unknown_message_is_404(http: httpx.Client) -> None:
    r = http.get("/messages/000000000000000000000000")
    assert r.status_code == 404
    assert r.json() == {
        "message": "Item with id '000000000000000000000000' does not exist.",
        "code": 404,
        "data": None,
    }


def test_17_put_keeps_status_when_omitted_or_null(http: httpx.Client) -> None:
    task = new_task(http)
    msg = http.post(
        "/messages", json={"task_id": task, "content": text("a"), "streaming_status": "IN_PROGRESS"}
    )
    mid = msg.json()["id"]
    for status in ({}, {"streaming_status": None}):
        out = http.put(f"/messages/{mid}", json={"task_id": task, "content": text("b")} | status).json()
        assert out["streaming_status"] == "IN_PROGRESS" and out["created_at"] == msg.json()["created_at"]


def test_18_put_with_another_tasks_id_is_400(http: httpx.Client) -> None:
    task, other = new_task(http), new_task(http)
    mid = http.post("/messages", json={"task_id": task, "content": text("a")}).json()["id"]
    r = http.put(f"/messages/{mid}", json={"task_id": other, "content": text("b")})
    assert r.status_code == 400 and set(r.json()) == {"message", "code", "data"}
    assert (
        http.put(
            "/messages/000000000000000000000000", json={"task_id": task, "content": text("b")}
        ).status_code
        == 404
    )


def test_19_batch_create_empty_is_empty(http: httpx.Client) -> None:
    assert http.post("/messages/batch", json={"task_id": new_task(http), "contents": []}).json() == []


def test_20_batch_with_one_invalid_item_stores_nothing(http: httpx.Client) -> None:
    task = new_task(http)
    contents = [text("a"), text("b"), {"type": "text", "author": "user"}, text("d")]
    r = http.post("/messages/batch", json={"task_id": task, "contents": contents})
    assert r.status_code == 422 and r.json()["data"][0]["loc"] == ["body", "contents", 2, "content"]
    assert http.get("/messages", params={"task_id": task}).json() == []


def test_21_and_22_batch_update_is_atomic_and_keeps_status(http: httpx.Client) -> None:
    task, other = new_task(http), new_task(http)
    a = http.post(
        "/messages", json={"task_id": task, "content": text("a"), "streaming_status": "IN_PROGRESS"}
    ).json()
    b = http.post("/messages", json={"task_id": task, "content": text("b")}).json()
    c = http.post("/messages", json={"task_id": other, "content": text("c")}).json()
    missing = http.put(
        "/messages/batch", json={"task_id": task, "updates": {a["id"]: text("A"), "nope": text("x")}}
    )
    assert missing.status_code == 404
    foreign = http.put(
        "/messages/batch", json={"task_id": task, "updates": {a["id"]: text("A"), c["id"]: text("x")}}
    )
    assert foreign.status_code == 400 and foreign.json()["data"] == {"message_ids": [c["id"]]}
    assert http.get(f"/messages/{a['id']}").json()["content"]["content"] == "a"
    ok = http.put(
        "/messages/batch", json={"task_id": task, "updates": {b["id"]: text("B"), a["id"]: text("A")}}
    )
    assert [m["id"] for m in ok.json()] == [b["id"], a["id"]]
    assert ok.json()[1]["streaming_status"] == "IN_PROGRESS"


def test_23_batch_and_paginated_are_not_message_ids(http: httpx.Client) -> None:
    task = new_task(http)
    assert http.get("/messages/paginated", params={"task_id": task}).json() == {
        "data": [],
        "next_cursor": None,
        "has_more": False,
    }
    # PUT /messages/{id} would demand "content"; the batch route takes the map instead.
    assert http.put("/messages/batch", json={"task_id": task, "updates": {}}).json() == []


def test_25_idempotency_key_makes_client_retries_safe(server: Server, http: httpx.Client) -> None:
    task = new_task(http)
    client = server.client(default_headers={"Idempotency-Key": "retry-1"})
    first = client.messages.create(task_id=task, content=text("once"))  # type: ignore[arg-type]
    second = client.messages.create(task_id=task, content=text("once"))  # type: ignore[arg-type]
    assert first.id == second.id
    assert len(http.get("/messages", params={"task_id": task}).json()) == 1
    reused = http.post(
        "/messages",
        headers={"Idempotency-Key": "retry-1"},
        json={"task_id": task, "content": text("different")},
    )
    assert reused.status_code == 422


def test_29_deleted_task_and_task_list_validation(http: httpx.Client) -> None:
    task = new_task(http)
    assert http.delete(f"/tasks/{task}").status_code == 200
    assert http.get(f"/tasks/{task}").status_code == 404
    assert http.get("/tasks", params={"status": "DELETED"}).status_code == 400
    assert http.get("/tasks", params={"task_metadata": "{bad"}).status_code == 400
    assert http.get("/tasks", params={"task_metadata": "{}"}).status_code == 400


def test_28_rpc_errors_are_http_200(http: httpx.Client) -> None:
    bad_params = http.post("/agents/name/echo/rpc", json={"method": "task/create", "params": {"params": [1]}})
    assert bad_params.status_code == 200 and bad_params.json()["error"]["code"] == -32602
    unknown = http.post("/agents/name/echo/rpc", json={"method": "nope", "params": {}})
    assert unknown.status_code == 200 and unknown.json()["error"]["code"] == -32601
    lines = http.post(
        "/agents/name/echo/rpc",
        json={
            "method": "message/send",
            "params": {"task_id": new_task(http), "content": text("hi"), "stream": True},
        },
    )
    assert lines.headers["content-type"].startswith("application/x-ndjson")
    frames = [httpx.Response(200, content=line).json() for line in lines.text.splitlines()]
    assert all(set(f) == {"jsonrpc", "id", "result", "error"} for f in frames)
    assert http.get("/agents/name/nobody").status_code == 404


def test_client_mistakes_are_never_500(http: httpx.Client) -> None:
    task = new_task(http)
    cases = [
        http.post("/messages", content=b"{not json", headers={"content-type": "application/json"}),
        http.post("/messages", json=[1, 2]),
        http.post("/messages", json={"task_id": task, "content": text("x"), "created_at": "yesterday"}),
        http.post("/messages", json={"task_id": task, "content": text("x"), "streaming_status": "LATER"}),
        http.post("/messages/batch", json={"task_id": task, "contents": {"a": 1}}),
        http.put("/messages/batch", json={"task_id": task, "updates": [1]}),
        http.get("/messages", params={"task_id": task, "limit": "many"}),
        http.get("/messages", params={"task_id": task, "order_by": "content"}),
        http.get("/messages"),
        http.get("/messages/paginated", params={"task_id": task, "direction": "sideways"}),
    ]
    assert [r.status_code for r in cases] == [422, 422, 422, 422, 422, 422, 400, 400, 422, 400]
    for r in cases:
        assert set(r.json()) >= {"message", "code", "data"} and r.json()["data"][0]["loc"]
