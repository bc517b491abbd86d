"""Hypothesis-made Responses bodies, valid and broken, posted to a live ``/v1/responses``: a
response, or a 4xx in OpenAI's error shape naming the field; never a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import orjson
import pytest
from fuzz_app import live_fuzz_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
PART = st.fixed_dictionaries(
    {"type": st.sampled_from(["input_text", "output_text", "input_image", "input_file", "refusal", "x"])},
    optional={
        "text": st.text(max_size=5) | JSON,
        "image_url": st.text(max_size=8) | JSON,
        "file_id": st.text(max_size=4) | JSON,
        "file_data": st.text(max_size=12) | JSON,
        "file_url": JSON,
    },
)
ITEM_TYPES = st.sampled_from(
    [
        "message",
        "function_call",
        "function_call_output",
        "reasoning",
        "mcp_call",
        "mcp_approval_request",
        "mcp_approval_response",
        "item_reference",
        "web_search_call",
    ]
)
ITEM = st.fixed_dictionaries(
    {},
    optional={
        "type": ITEM_TYPES | JSON,
        "role": st.sampled_from(["user", "system", "developer", "assistant", "tool"]) | JSON,
        "content": st.text(max_size=6) | st.lists(PART | JSON, max_size=3) | JSON,
        "call_id": st.text(max_size=4) | JSON,
        "name": st.text(max_size=4) | JSON,
        "arguments": st.text(max_size=8) | JSON,
        "output": st.text(max_size=6) | JSON,
        "id": st.text(max_size=6) | JSON,
        "summary": st.lists(JSON, max_size=2) | JSON,
        "approval_request_id": st.text(max_size=6) | JSON,
        "approve": JSON,
        "reason": JSON,
        "error": JSON,
    },
)
BODY = st.fixed_dictionaries(
    {"model": st.sampled_from(["echo", "crash"]) | JSON},
    optional={
        "input": st.text(max_size=8) | st.lists(ITEM | JSON, max_size=4) | JSON,
        "instructions": st.text(max_size=6) | JSON,
        "metadata": st.dictionaries(st.text(max_size=4), st.text(max_size=4) | JSON, max_size=2) | JSON,
        "tools": st.lists(st.fixed_dictionaries({"type": st.just("function")}, optional={"name": JSON}))
        | JSON,
        "tool_choice": JSON,
        "store": JSON,
        "stream": st.booleans() | JSON,
        "previous_response_id": st.text(max_size=8) | JSON,
        "conversation": JSON,
        "temperature": JSON,
        "unknown_field": JSON,
    },
)


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with live_fuzz_server() as url, httpx.Client(base_url=url, timeout=10) as c:
        yield c


def _check(r: httpx.Response, body: Any) -> None:
    assert r.status_code in (200, 400, 404, 409, 422), (r.status_code, r.text, body)
    if r.status_code != 200:
        error = r.json()["error"]
        assert set(error) == {"message", "type", "param", "code"}, error
        assert error["message"]
    elif r.headers["content-type"].startswith("application/json"):
        response = r.json()
        assert response["object"] == "response" and response["status"] in ("completed", "failed")
    else:
        assert r.text.rstrip().endswith("data: [DONE]")


@given(body=BODY)
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_any_responses_body_is_a_response_or_a_4xx_naming_the_field(client: httpx.Client, body: Any) -> None:
    r = client.post("/v1/responses", json=body)
    _check(r, body)
    if r.status_code == 400 and isinstance(body.get("model"), str) and body["model"]:
        assert r.json()["error"]["param"], r.text


@given(body=JSON)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_any_json_body_is_never_a_5xx(client: httpx.Client, body: Any) -> None:
    r = client.post("/v1/responses", content=orjson.dumps(body), headers={"content-type": "application/json"})
    _check(r, body)


@given(raw=st.binary(max_size=64))
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_any_bytes_are_never_a_5xx(client: httpx.Client, raw: bytes) -> None:
    r = client.post("/v1/responses", content=raw, headers={"content-type": "application/json"})
    _check(r, raw)


@given(rid=st.text(min_size=1, max_size=40))
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_any_response_id_is_a_404_never_a_5xx(client: httpx.Client, rid: str) -> None:
    quoted = quote(rid, safe="")
    for method, path in (("GET", ""), ("DELETE", ""), ("GET", "/input_items"), ("POST", "/cancel")):
        r = client.request(method, f"/v1/responses/{quoted}{path}")
        assert r.status_code == 404, (method, path, r.status_code, r.text)
        assert set(r.json()["error"]) == {"message", "type", "param", "code"}
