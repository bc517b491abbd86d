"""Hostile input to the Agentex routes (issue 12): every case is a 4xx naming the field, never a 500,
and never a write that breaks the task for later requests. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import uuid

import httpx
import pytest
from agentex_server import Server

from turnwire.store.limits import MAX_ID_CHARS, MAX_LIMIT, MAX_PAGE_NUMBER


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


def refused(r: httpx.Response, status: int, loc: list) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["data"][0]["loc"][: len(loc)] == loc, body
    assert "Class" not in body["message"]


@pytest.mark.parametrize(
    "created_at",
    [
        "9999-12-31T23:59:59.999999Z",
        "9999-12-31T23:59:59.999999-14:00",
        "0001-01-01T00:00:00Z",
        "0001-01-01T00:00:00+14:00",
        "1969-12-31T23:59:59Z",
        "9999-06-01T00:00:00",
    ],
)
def test_created_at_out_of_range_is_422_and_the_task_stays_writable(
    http: httpx.Client, created_at: str
) -> None:
    task = new_task(http)
    one = http.post("/messages", json={"task_id": task, "content": text("x"), "created_at": created_at})
    refused(one, 422, ["body", "created_at"])
    batch = http.post(
        "/messages/batch", json={"task_id": task, "contents": [text("x")], "created_at": created_at}
    )
    refused(batch, 422, ["body", "created_at"])
    # Nothing was written, so the task takes later writes and lists.
    assert http.post("/messages", json={"task_id": task, "content": text("y")}).status_code == 200
    assert [m["content"]["content"] for m in http.get("/messages", params={"task_id": task}).json()] == ["y"]


def test_created_at_at_the_edges_of_the_range_is_stored(http: httpx.Client) -> None:
    task = new_task(http)
    for stamp in ("1970-01-01T00:00:00Z", "9998-12-31T23:59:59.999999Z"):
        r = http.post(
            "/messages/batch", json={"task_id": task, "contents": [text("a"), text("b")], "created_at": stamp}
        )
        assert r.status_code == 200, r.text
    assert http.post("/messages", json={"task_id": task, "content": text("later")}).status_code == 200
    assert len(http.get("/messages", params={"task_id": task, "limit": 10}).json()) == 5


BAD_LIMITS = [str(10**20), str(MAX_LIMIT + 1), "-1", "1" * 5000]
BAD_PAGES = [str(10**20), str(MAX_PAGE_NUMBER + 1), "0"]
BAD_PAGING = [
    *[(path, "limit", v) for path in ("/messages", "/messages/paginated", "/tasks") for v in BAD_LIMITS],
    *[(path, "page_number", v) for path in ("/messages", "/tasks") for v in BAD_PAGES],
]


@pytest.mark.parametrize(("path", "name", "value"), BAD_PAGING)
def test_huge_limits_and_page_numbers_are_400(http: httpx.Client, path: str, name: str, value: str) -> None:
    params = {name: value, "task_id": new_task(http)}
    refused(http.get(path, params=params), 400, ["query", name])


def test_largest_limit_and_page_number_are_answered(http: httpx.Client) -> None:
    task = new_task(http)
    big = {"limit": MAX_LIMIT, "page_number": MAX_PAGE_NUMBER}
    assert http.get("/messages", params={"task_id": task, **big}).json() == []
    assert http.get("/tasks", params=big).json() == []
    assert http.get("/messages/paginated", params={"task_id": task, "limit": MAX_LIMIT}).status_code == 200


def test_cursor_with_out_of_range_numbers_is_400(http: httpx.Client) -> None:
    import base64

    task = new_task(http)
    for t, s in ((2**64 - 1, 0), (0, 2**63), (-(2**63) - 1, 0)):
        raw = json.dumps({"v": 2, "task": task, "t": t, "s": s}).encode()
        cursor = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        refused(
            http.get("/messages/paginated", params={"task_id": task, "cursor": cursor}),
            400,
            ["query", "cursor"],
        )


def _deep(n: int) -> dict:
    value: dict = {"type": "x"}
    for _ in range(n):
        value = {"data": value}
    return value


@pytest.mark.parametrize("path", ["/messages", "/messages/paginated"])
@pytest.mark.parametrize(
    "filters",
    [
        '{"content":' + '{"data":' * 1000 + '"x"' + "}" * 1001,
        json.dumps({"content": _deep(40)}),
        "[" * 2000 + "]" * 2000,
        json.dumps([{"content": {"type": "text"}}] * 1000),
        json.dumps({"content": {f"k{i}": i for i in range(1000)}}),
        json.dumps([{"content": {f"k{i}": i for i in range(10)}}] * 50),
        json.dumps({"content": {"a\u0000b": "x"}}),
        json.dumps({"content": {"type": "a\u0000b"}}),
        json.dumps({"content": {"": "x"}}),
        json.dumps({"content": {"data": {"": "x"}}}),
        json.dumps({"streaming_status": "NOPE"}),
        "null",
        "3",
    ],
)
def test_deep_huge_and_malformed_filters_are_400(http: httpx.Client, path: str, filters: str) -> None:
    r = http.get(path, params={"task_id": new_task(http), "filters": filters})
    refused(r, 400, ["query", "filters"])


def test_a_filter_within_the_limits_still_matches(http: httpx.Client) -> None:
    task = new_task(http)
    deep = _deep(20)
    http.post(
        "/messages", json={"task_id": task, "content": {"type": "data", "author": "agent", "data": deep}}
    )
    got = http.get("/messages", params={"task_id": task, "filters": json.dumps({"content": {"data": deep}})})
    assert got.status_code == 200 and len(got.json()) == 1


NUL_CONTENTS = [
    text("a\u0000b"),
    {"type": "data", "author": "agent", "data": {"k": "a\u0000", "\\u0000": "\\u0000\u0000"}},
    {"type": "data", "author": "agent", "data": {"k\u0000": 1}},
]


@pytest.mark.parametrize("content", NUL_CONTENTS)
def test_nul_in_contents_is_stored_exactly_and_lists_still_filter(http: httpx.Client, content: dict) -> None:
    # One behaviour on both databases: a NUL in a content is stored and read back as it was given.
    task = new_task(http)
    made = http.post("/messages", json={"task_id": task, "content": content})
    assert made.status_code == 200, made.text
    batch = http.post("/messages/batch", json={"task_id": task, "contents": [text("fine"), content]})
    assert batch.status_code == 200, batch.text
    good = http.post("/messages", json={"task_id": task, "content": text("ok")}).json()
    put = http.put(f"/messages/{good['id']}", json={"task_id": task, "content": content})
    assert put.status_code == 200 and put.json()["content"]["type"] == content["type"]
    got = http.get(f"/messages/{made.json()['id']}").json()["content"]
    assert {k: got[k] for k in content} == content
    for path in ("/messages", "/messages/paginated"):
        # Filtered lists of a task holding NULs still answer (PostgreSQL reads them as JSONB).
        query = {"task_id": task, "filters": json.dumps({"content": {"type": content["type"]}})}
        listed = http.get(path, params=query)
        assert listed.status_code == 200, listed.text
        rows = listed.json() if path == "/messages" else listed.json()["data"]
        assert len(rows) == (4 if content["type"] == "text" else 3)


def test_nul_in_task_params_and_metadata_is_stored_and_metadata_lists_answer(http: httpx.Client) -> None:
    meta = {"k": "v\u0000", "tag": uuid.uuid4().hex}
    create = {"id": 1, "method": "task/create", "params": {"task_metadata": meta, "params": {"p": "\u0000"}}}
    r = http.post("/agents/name/quiet/rpc", json=create)
    assert r.json()["result"]["task_metadata"] == meta, r.text
    listed = http.get("/tasks", params={"task_metadata": json.dumps({"tag": meta["tag"]})})
    assert listed.status_code == 200 and [t["task_metadata"] for t in listed.json()] == [meta]


def test_nul_in_rpc_content_is_stored(http: httpx.Client) -> None:
    name = uuid.uuid4().hex
    params = {"task_name": name, "content": text("a\u0000")}
    r = http.post("/agents/name/quiet/rpc", json={"id": 1, "method": "message/send", "params": params})
    assert r.status_code == 200 and r.json()["error"] is None, r.text
    task = http.get(f"/tasks/name/{name}").json()["id"]
    listed = http.get("/messages", params={"task_id": task}).json()
    assert [m["content"]["content"] for m in listed] == ["a\u0000"]


NUL_ROUTES = [
    ("GET", "/messages/{x}"),
    ("PUT", "/messages/{x}"),
    ("GET", "/tasks/{x}"),
    ("DELETE", "/tasks/{x}"),
    ("GET", "/tasks/name/{x}"),
    ("DELETE", "/tasks/name/{x}"),
    ("GET", "/tasks/{x}/messages"),
    ("GET", "/tasks/name/{x}/messages"),
    ("GET", "/tasks/{x}/stream"),
    ("GET", "/agents/{x}"),
    ("GET", "/agents/name/{x}"),
]


@pytest.mark.parametrize(("method", "route"), NUL_ROUTES)
@pytest.mark.parametrize("bad", ["a%00b", "x" * (MAX_ID_CHARS + 1)])
def test_nul_and_over_long_path_ids_are_4xx(http: httpx.Client, method: str, route: str, bad: str) -> None:
    body = {"task_id": "t", "content": text("x")} if method == "PUT" else None
    r = http.request(method, route.replace("{x}", bad), json=body)
    assert 400 <= r.status_code < 500, r.text
    assert "Class" not in r.text and "SELECT" not in r.text.upper()
    if "%00" in bad and r.status_code == 422:
        assert r.json()["message"] == "must not contain NUL (\\u0000)"


@pytest.mark.parametrize("field", ["task_id", "task_name"])
def test_nul_and_over_long_ids_in_bodies_and_queries_are_4xx(http: httpx.Client, field: str) -> None:
    for bad in ("a\u0000b", "x" * (MAX_ID_CHARS + 1)):
        if field == "task_id":
            r = http.post("/messages", json={"task_id": bad, "content": text("x")})
            refused(r, 422, ["body", "task_id"])
            refused(http.get("/messages", params={"task_id": bad}), 400, ["query", "task_id"])
            refused(http.get("/messages/paginated", params={"task_id": bad}), 400, ["query", "task_id"])
        rpc = http.post(
            "/agents/name/quiet/rpc",
            json={"id": 1, "method": "message/send", "params": {field: bad, "content": text("x")}},
        )
        assert rpc.status_code == 200 and rpc.json()["error"]["code"] == -32602, rpc.text


def test_nul_in_a_task_name_is_a_json_rpc_error(http: httpx.Client) -> None:
    for params in ({"name": "a\u0000"}, {"name": "x" * (MAX_ID_CHARS + 1)}):
        r = http.post("/agents/name/quiet/rpc", json={"id": 1, "method": "task/create", "params": params})
        assert r.status_code == 200 and r.json()["error"]["code"] == -32602, r.text
    listed = http.get("/tasks", params={"task_metadata": json.dumps({"k\u0000": "v"})})
    refused(listed, 400, ["query", "task_metadata"])
