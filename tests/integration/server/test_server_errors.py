"""Every refusal of /invoke: status, JSON body naming the problem, and no turn run before it."""

from __future__ import annotations

import httpx
import pytest
from live_server import ECHOED, MAX_BODY
from server_wire import invoke_body

SUPPORTED_LAST = "application/jsonl"
JSON = {"content-type": "application/json"}
STREAM_ACCEPTS = ["text/event-stream", "application/x-ndjson", "application/json"]


def _detail(r: httpx.Response, status: int) -> dict:
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/json"
    (item,) = r.json()["detail"]
    return item


@pytest.mark.parametrize("accept", STREAM_ACCEPTS)
@pytest.mark.parametrize(
    ("raw", "kind"),
    [(b"{", "json_invalid"), (b"not json", "json_invalid"), (b"", "missing"), (b"{'a': 1}", "json_invalid")],
)
def test_malformed_json_is_400(client: httpx.Client, raw: bytes, kind: str, accept: str) -> None:
    r = client.post("/invoke", content=raw, headers={"content-type": "application/json", "accept": accept})
    item = _detail(r, 400)
    assert item["loc"] == ["body"] and item["type"] == kind


@pytest.mark.parametrize("body", [b"[]", b'"x"', b"3", b"null", b"true"])
def test_non_object_body_is_422(client: httpx.Client, body: bytes) -> None:
    item = _detail(client.post("/invoke", content=body, headers=JSON), 422)
    assert item["loc"] == ["body"]


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"data": []}, ["body", "data"]),
        ({"data": "x"}, ["body", "data"]),
        ({"data": {"inputs": [1]}}, ["body", "data", "inputs"]),
        ({"data": {"inputs": {}, "parameters": "p"}}, ["body", "data", "parameters"]),
        ({"data": {"inputs": {"messages": {"role": "user"}}}}, ["body", "data", "inputs", "messages"]),
        ({"data": {"inputs": {"messages": "hello"}}}, ["body", "data", "inputs", "messages"]),
        ({"data": {"inputs": {"messages": 1}}}, ["body", "data", "inputs", "messages"]),
    ],
)
def test_envelope_of_the_wrong_shape_is_422_naming_where(
    client: httpx.Client, body: object, loc: list
) -> None:
    before = len(ECHOED)
    item = _detail(client.post("/invoke", json=body, headers={"accept": "text/event-stream"}), 422)
    assert item["loc"] == loc
    assert len(ECHOED) == before


@pytest.mark.parametrize(
    ("messages", "loc"),
    [
        ([{"role": "user", "content": "a"}, {"role": "user", "content": 3}], [1, "content"]),
        ([{"role": "user", "content": None}], [0, "content"]),
        ([{"role": "user", "content": "ok"}, {"role": "user", "content": {"a": 1}}], [1, "content"]),
        ([{"role": 5, "content": "x"}], [0, "role"]),
        ([{"role": "user", "content": "x", "display_content": 3}], [0, "display_content"]),
    ],
)
def test_bad_agenta_messages_are_422_naming_the_field(
    client: httpx.Client, messages: list, loc: list
) -> None:
    for accept in STREAM_ACCEPTS:
        item = _detail(client.post("/invoke", json=invoke_body(messages), headers={"accept": accept}), 422)
        assert item["loc"][:5] == ["body", "data", "inputs", "messages", loc[0]]
        assert item["loc"][5] == loc[1]
        assert item["msg"]


@pytest.mark.parametrize(
    "messages",
    [[{"parts": []}], [{"role": "user", "parts": "x"}], ["text"], [{"role": "user", "parts": [1]}]],
)
def test_bad_vercel_messages_are_422_never_500(client: httpx.Client, messages: list) -> None:
    headers = {"x-ag-messages-format": "vercel", "accept": "text/event-stream"}
    item = _detail(client.post("/invoke", json=invoke_body(messages), headers=headers), 422)
    assert item["loc"][:5] == ["body", "data", "inputs", "messages", 0]


def test_too_deep_json_is_400(client: httpx.Client) -> None:
    deep = "[" * 65 + "]" * 65
    raw = b'{"data": {"inputs": {"messages": [], "x": ' + deep.encode() + b"}}}"
    item = _detail(client.post("/invoke", content=raw, headers=JSON), 400)
    assert item["type"] == "json_too_deep"
    very_deep = b"[" * 5000 + b"]" * 5000  # beyond orjson's own recursion limit
    assert _detail(client.post("/invoke", content=very_deep, headers=JSON), 400)["type"] == "json_too_deep"
    ok = "[" * 50 + "]" * 50  # under the limit: fine
    raw = b'{"data": {"inputs": {"messages": []}, "x": ' + ok.encode() + b"}}"
    assert client.post("/invoke", content=raw, headers=JSON).status_code == 200


def test_oversize_body_is_413_by_content_length(client: httpx.Client) -> None:
    raw = b'{"pad": "' + b"x" * MAX_BODY + b'"}'
    item = _detail(client.post("/invoke", content=raw, headers={**JSON, "accept": "text/event-stream"}), 413)
    assert item["type"] == "body_too_large"


def test_oversize_chunked_body_is_413_while_reading(client: httpx.Client) -> None:
    def chunks():
        yield b'{"pad": "'
        for _ in range(MAX_BODY // 4096 + 2):
            yield b"x" * 4096
        yield b'"}'

    r = client.post("/invoke", content=chunks(), headers=JSON)
    assert r.request.headers.get("transfer-encoding") == "chunked"
    assert _detail(r, 413)["type"] == "body_too_large"


def test_body_just_under_the_limit_is_accepted(client: httpx.Client) -> None:
    head = b'{"data": {"inputs": {"messages": []}}, "pad": "'
    raw = head + b"x" * (MAX_BODY - len(head) - 2) + b'"}'
    assert len(raw) == MAX_BODY
    assert client.post("/invoke", content=raw, headers=JSON).status_code == 200


@pytest.mark.parametrize("value", ["openai", "vercel2", "agenta vercel"])
def test_unknown_messages_format_is_400_naming_the_header(client: httpx.Client, value: str) -> None:
    r = client.post(
        "/invoke", json=invoke_body(), headers={"x-ag-messages-format": value, "accept": "text/event-stream"}
    )
    item = _detail(r, 400)
    assert item["loc"] == ["header", "x-ag-messages-format"]


@pytest.mark.parametrize(
    "accept",
    [
        "text/html",
        "application/json-seq",
        "application/xml, text/plain;q=0.5",
        "*/*;q=0",
        "application/json;q=0",
    ],
)
@pytest.mark.parametrize("fmt", ["agenta", "vercel"])
def test_unservable_accept_is_406_before_the_turn(client: httpx.Client, accept: str, fmt: str) -> None:
    before = len(ECHOED)
    r = client.post("/invoke", json=invoke_body(), headers={"accept": accept, "x-ag-messages-format": fmt})
    assert r.status_code == 406
    assert r.headers["content-type"] == "application/json"
    assert not any(h.startswith("x-ag-") for h in r.headers)
    body = r.json()
    assert body["requested"] == accept
    assert body["supported"] == [
        "application/json",
        "text/event-stream",
        "application/x-ndjson",
        "application/jsonl",
    ]
    assert isinstance(body["detail"], str) and body["detail"]
    assert len(ECHOED) == before


def test_406_comes_before_body_errors(client: httpx.Client) -> None:
    r = client.post("/invoke", content=b"{broken", headers={"accept": "text/html"})
    assert r.status_code == 406


def test_get_on_invoke_is_a_json_405(client: httpx.Client) -> None:
    r = client.get("/invoke")
    assert r.status_code == 405
    assert r.headers["content-type"] == "application/json"


def test_unknown_route_is_a_json_404(client: httpx.Client) -> None:
    r = client.get("/nope")
    assert r.status_code == 404 and r.json() == {"detail": "Not Found"}
