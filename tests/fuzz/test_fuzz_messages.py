"""Hypothesis-made message lists, valid and broken, posted to a live /invoke: never a 5xx."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import pytest
from fuzz_app import live_fuzz_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # what JSON can carry exactly here
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
NAMES = st.sampled_from(["text", "image", "resource", "attachment", "tool_call", "tool_result", "weird"])
KEYS = st.sampled_from(
    ["text", "data", "uri", "mimeType", "mime_type", "toolCallId", "tool_call_id", "toolName", "input",
     "output", "isError", "is_error", "attachmentId", "size", "filename"]
)  # fmt: skip
BLOCK = st.one_of(
    st.text(max_size=5),
    st.fixed_dictionaries({"type": NAMES}).flatmap(
        lambda head: st.dictionaries(KEYS, JSON | st.text(max_size=5), max_size=4).map(
            lambda d: {**d, **head}
        )
    ),
    JSON,
)
PART_TYPES = st.sampled_from(
    [
        "text",
        "file",
        "reasoning",
        "tool-search",
        "dynamic-tool",
        "tool-approval-response",
        "step-start",
        "data-x",
    ]
)
STATES = ["input-available", "output-available", "output-error", "approval-responded", "output-denied"]
PART = st.fixed_dictionaries(
    {"type": PART_TYPES},
    optional={
        "text": st.text(max_size=5) | JSON,
        "toolCallId": st.text(max_size=4) | JSON,
        "state": st.sampled_from(
            ["input-available", "output-available", "output-error", "approval-responded"]
        ),
        "input": JSON,
        "output": JSON,
        "approval": st.fixed_dictionaries({"id": st.text(max_size=4)}, optional={"approved": JSON}),
        "url": st.text(max_size=8),
        "mediaType": st.sampled_from(["image/png", "text/plain"]) | JSON,
    },
)
ROLE = st.sampled_from(["user", "assistant", "system", "tool"]) | JSON
AGENTA_MESSAGE = st.fixed_dictionaries(
    {"role": ROLE},
    optional={
        "content": st.text(max_size=8) | st.lists(BLOCK, max_size=4) | JSON,
        "display_content": st.none() | st.text(max_size=4) | JSON,
        "tool_call_id": st.text(max_size=4) | JSON,
        "input": JSON,
    },
)
VERCEL_MESSAGE = st.fixed_dictionaries(
    {"role": ROLE},
    optional={
        "id": st.text(max_size=4) | JSON,
        "parts": st.lists(PART | JSON, max_size=4) | JSON,
        "content": JSON,
    },
)
MESSAGES = st.lists(AGENTA_MESSAGE | VERCEL_MESSAGE | JSON, max_size=5) | JSON
ACCEPT = st.sampled_from(["application/json", "text/event-stream", "application/x-ndjson"])
FORMAT = st.sampled_from(["agenta", "vercel"])


@pytest.fixture(scope="module")
def client() -> Iterator[httpx.Client]:
    with live_fuzz_server() as url, httpx.Client(base_url=url, timeout=10) as c:
        yield c


def _check(r: httpx.Response, messages: Any) -> None:
    assert r.status_code in (200, 422), (r.status_code, r.text, messages)
    if r.status_code == 422:
        assert r.headers["content-type"] == "application/json"
        (item,) = r.json()["detail"]
        assert item["loc"][:4] == ["body", "data", "inputs", "messages"], item
        assert item["msg"]


@given(messages=MESSAGES, accept=ACCEPT, fmt=FORMAT)
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_any_messages_get_a_turn_or_a_422_naming_where(
    client: httpx.Client, messages: Any, accept: str, fmt: str
) -> None:
    body = {"data": {"inputs": {"messages": messages}}}
    r = client.post("/invoke", json=body, headers={"accept": accept, "x-ag-messages-format": fmt})
    _check(r, messages)
    if r.status_code == 200 and accept == "application/json":
        assert r.json()["data"]["outputs"]["stop_reason"] == "end_turn"


@given(body=JSON, accept=ACCEPT)
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_any_json_body_is_never_a_5xx(client: httpx.Client, body: Any, accept: str) -> None:
    r = client.post(
        "/invoke", content=orjson.dumps(body), headers={"accept": accept, "content-type": "application/json"}
    )
    assert r.status_code in (200, 422), (r.status_code, r.text, body)


@given(raw=st.binary(max_size=64))
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
def test_any_bytes_are_never_a_5xx(client: httpx.Client, raw: bytes) -> None:
    r = client.post("/invoke", content=raw, headers={"content-type": "application/json"})
    assert r.status_code in (200, 400, 422), (r.status_code, r.text, raw)
