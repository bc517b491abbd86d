"""Browser safety and request ids on the turn doors: non-JSON bodies are 415 before any turn runs,
CORS only for configured origins, and every answer carries an ``x-request-id``."""

from __future__ import annotations

import httpx
import pytest
from live_server import ECHOED, serve
from server_wire import invoke_body

from turnwire.server import Settings, create_app
from turnwire.server.http.cors import EXPOSED_HEADERS

CHAT = {
    "id": "browser-1",
    "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}],
}
AGUI = {
    "threadId": "browser-2",
    "runId": "r1",
    "messages": [{"id": "u1", "role": "user", "content": "hi"}],
    "tools": [],
    "context": [],
    "state": None,
    "forwardedProps": None,
}
OPENAI = {"model": "echo", "messages": [{"role": "user", "content": "hi"}]}
DOORS = [
    ("/invoke", invoke_body()),
    ("/agents/echo/invoke", invoke_body()),
    ("/chat", CHAT),
    ("/agents/echo/chat", CHAT),
    ("/agui", AGUI),
    ("/v1/chat/completions", OPENAI),
    ("/v1/responses", {"model": "echo", "input": "hi"}),
]
NOT_JSON = [
    "text/plain",
    "text/plain;charset=UTF-8",
    "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x",
    "application/jsonp",
    None,
]


def _named_header(r: httpx.Response) -> None:
    assert r.status_code == 415, r.text
    body = r.json()
    if "error" in body:  # the OpenAI door's shape names the parameter
        assert body["error"]["param"] == "content-type"
    else:
        assert body["detail"][0]["loc"] == ["header", "content-type"]


@pytest.mark.parametrize("content_type", NOT_JSON)
@pytest.mark.parametrize(("path", "body"), DOORS)
def test_a_non_json_body_is_415_and_runs_no_turn(
    client: httpx.Client, path: str, body: dict, content_type: str | None
) -> None:
    import orjson

    before = len(ECHOED)
    # A browser's "simple" cross-site POST: the body is JSON, the declared type is not.
    request = client.build_request("POST", path, content=orjson.dumps(body))
    if content_type is not None:
        request.headers["content-type"] = content_type
    assert request.headers.get("content-type") == content_type
    _named_header(client.send(request))
    assert len(ECHOED) == before


@pytest.mark.parametrize(
    "content_type", ["application/json; charset=utf-8", "application/vnd.turn+json", "APPLICATION/JSON"]
)
def test_json_media_types_are_accepted(client: httpx.Client, content_type: str) -> None:
    import orjson

    r = client.post("/invoke", content=orjson.dumps(invoke_body()), headers={"content-type": content_type})
    assert r.status_code == 200, r.text


def test_every_answer_carries_a_request_id_and_a_well_formed_one_is_kept(client: httpx.Client) -> None:
    ok = client.get("/health")
    refused = client.post("/invoke", content=b"{", headers={"content-type": "application/json"})
    ids = {ok.headers["x-request-id"], refused.headers["x-request-id"]}
    assert len(ids) == 2 and all(len(i) == 32 for i in ids)
    assert (
        client.get("/health", headers={"x-request-id": "edge-42.a:b_c"}).headers["x-request-id"]
        == "edge-42.a:b_c"
    )
    for bad in ("has space", "x" * 129, "semi;colon", ""):
        got = client.get("/health", headers={"x-request-id": bad}).headers["x-request-id"]
        assert got != bad and len(got) == 32


def test_no_cors_by_default(client: httpx.Client) -> None:
    preflight = client.options(
        "/chat", headers={"origin": "https://evil.example", "access-control-request-method": "POST"}
    )
    assert "access-control-allow-origin" not in preflight.headers
    got = client.get("/health", headers={"origin": "https://evil.example"})
    assert "access-control-allow-origin" not in got.headers


def test_cors_allows_only_the_configured_origins() -> None:
    settings = Settings(cors_origins="https://app.example, https://other.example/")
    assert settings.cors_origins == ("https://app.example", "https://other.example")
    with serve(create_app({}, settings=settings)) as url, httpx.Client(base_url=url) as c:
        ask = {
            "origin": "https://app.example",
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, authorization, user-agent, x-ai-sdk-version",
        }
        ok = c.options("/chat", headers=ask)
        assert ok.status_code == 200
        assert ok.headers["access-control-allow-origin"] == "https://app.example"
        assert "content-type" in ok.headers["access-control-allow-headers"].lower()
        denied = c.options("/chat", headers={**ask, "origin": "https://evil.example"})
        assert denied.status_code == 400 and "access-control-allow-origin" not in denied.headers
        simple = c.get("/health", headers={"origin": "https://other.example"})
        assert simple.headers["access-control-allow-origin"] == "https://other.example"
        exposed = {h.strip() for h in simple.headers["access-control-expose-headers"].split(",")}
        assert {"x-request-id", "x-ag-session-id", "x-vercel-ai-ui-message-stream"} <= exposed
        assert set(EXPOSED_HEADERS) == exposed


def test_a_refusal_is_logged_under_the_request_id(
    client: httpx.Client, caplog: pytest.LogCaptureFixture
) -> None:
    import logging

    with caplog.at_level(logging.INFO, logger="turnwire.server"):
        r = client.post(
            "/invoke", content=b"{}", headers={"content-type": "text/plain", "x-request-id": "refused-1"}
        )
    assert r.status_code == 415 and r.headers["x-request-id"] == "refused-1"
    lines = [rec.getMessage() for rec in caplog.records if "refused-1" in rec.getMessage()]
    assert lines == ["request refused: 415 UnsupportedMediaType [request_id=refused-1]"]
