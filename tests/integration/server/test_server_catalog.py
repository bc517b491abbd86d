"""Catalog, health and the OpenAPI document over real HTTP; the router mounted in a user's app."""

from __future__ import annotations

from typing import Any

import httpx
import jsonschema_rs
import pytest
from fastapi import FastAPI
from live_server import echo, serve
from server_wire import invoke_body

from turnwire.server import Settings, create_router, install_error_handlers


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        own = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return own + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def _resolve(root: dict, ref: str) -> Any:
    assert ref.startswith("#/"), ref
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def test_health(client: httpx.Client) -> None:
    r = client.get("/health")
    assert r.status_code == 200 and r.json() == {"status": "ok"}


@pytest.mark.parametrize("prefix", ["", "/api/workflows"])
def test_messages_catalog_type(client: httpx.Client, prefix: str) -> None:
    r = client.get(f"{prefix}/catalog/types/messages")
    assert r.status_code == 200
    body = r.json()
    assert body["count"] == 1 and body["type"]["key"] == "messages"
    schema = body["type"]["json_schema"]
    assert schema["type"] == "array" and schema["x-ag-type"] == "messages"
    refs = _refs(schema)
    assert refs, "the schema uses $defs"
    for ref in refs:  # no dangling $ref: every one resolves inside the schema itself
        assert _resolve(schema, ref) is not None
    message = schema["$defs"]["Message"]
    assert message["required"] == ["role"]
    assert {"role", "content", "display_content"} <= set(message["properties"])
    blocks = {
        d["properties"]["type"].get("const")
        for d in schema["$defs"].values()
        if "type" in d.get("properties", {})
    }
    assert {"text", "image", "resource", "attachment", "tool_call", "tool_result"} <= blocks
    call = schema["$defs"]["ToolCallBlock"]["properties"]
    assert {"toolCallId", "tool_call_id", "toolName", "tool_name", "input"} <= set(call)


def test_catalog_schema_accepts_what_invoke_accepts(client: httpx.Client) -> None:
    schema = client.get("/catalog/types/messages").json()["type"]["json_schema"]
    validator = jsonschema_rs.validator_for(schema)
    good = [
        {"role": "user", "content": "hi"},
        {"role": "user"},
        {"role": "assistant", "content": ["plain", {"text": "no type"}, {"type": "text", "text": "t"}]},
        {"role": "user", "content": [{"type": "image", "mimeType": "image/png", "data": "AAAA"}]},
        {"role": "user", "content": [{"type": "resource", "mime_type": "text/plain", "uri": "https://x"}]},
        {"role": "user", "content": [{"type": "attachment", "attachmentId": "a1", "size": 3}]},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_call", "toolCallId": "c", "toolName": "t", "input": {"a": 1}},
                {"type": "tool_result", "tool_call_id": "c", "output": "x", "isError": False},
            ],
        },
        {"role": "user", "content": [{"type": "my-block", "x": 1}], "display_content": None},
        {"role": "tool", "tool_call_id": "c", "tool_name": "t", "input": {}, "content": ""},
        {"role": "tool", "tool_call_id": "c", "content": {"any": "json"}, "is_error": None},
    ]
    validator.validate(good)
    r = client.post("/invoke", json=invoke_body(good))
    assert r.status_code == 200, r.text
    for bad in ([{"content": "no role"}], [{"role": "user", "content": 3}], [{"role": 5}]):
        assert not validator.is_valid(bad)


def test_catalog_list_and_unknown_type(client: httpx.Client) -> None:
    body = client.get("/catalog/types/").json()
    assert body["count"] == len(body["types"]) == 1
    assert body["types"][0]["key"] == "messages" and "json_schema" in body["types"][0]
    r = client.get("/api/workflows/catalog/types/nope")
    assert r.status_code == 404 and r.json() == {"detail": "Unknown ag-type: nope"}


def test_openapi_documents_the_real_invoke_models(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    for ref in _refs(doc):
        _resolve(doc, ref)
    op = doc["paths"]["/invoke"]["post"]
    body_ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = _resolve(doc, body_ref)
    assert request["additionalProperties"] is True
    assert "session_id" in request["properties"]
    assert set(op["responses"]) >= {"200", "400", "404", "406", "413", "422"}
    ok = op["responses"]["200"]["content"]
    assert {"application/json", "text/event-stream", "application/x-ndjson"} <= set(ok)
    assert "/agents/{name}/invoke" in doc["paths"]
    assert "/catalog/types/{ag_type}" in doc["paths"]


def test_router_mounts_in_a_users_app() -> None:
    app = FastAPI()
    agents: dict = {}
    app.include_router(create_router(agents, default_agent="mine", settings=Settings()), prefix="/chat")
    install_error_handlers(app)
    with serve(app) as url, httpx.Client(base_url=url) as c:
        assert c.post("/chat/invoke", json=invoke_body()).status_code == 404  # no agent yet
        agents["mine"] = echo  # the dict is read per request
        r = c.post("/chat/invoke", json=invoke_body())
        assert r.status_code == 200
        assert r.json()["data"]["outputs"]["messages"][0]["content"] == "you said: hi"
        assert c.get("/chat/health").json() == {"status": "ok"}
        assert (
            c.post("/chat/invoke", content=b"[", headers={"content-type": "application/json"}).status_code
            == 400
        )
