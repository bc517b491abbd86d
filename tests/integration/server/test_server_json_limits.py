"""Integers past 64 bits are refused with a clear 4xx on every route, never silently rounded."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services import serve_app
from turnwire.server import create_app
from turnwire.server.settings import Settings

BIG = "123456789012345678901234567890"
EDGE_OK = str(2**64 - 1)  # orjson writes it back exactly


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = tmp_path_factory.mktemp("jsonlimits") / "t.db"
    app = create_app(settings=Settings(db_url=f"sqlite:///{db}"))
    with serve_app(app, lifespan="on") as url, httpx.Client(base_url=url, timeout=30) as c:
        yield c


def _invoke(n: str) -> bytes:
    return (
        '{"data":{"inputs":{"messages":[{"role":"user","content":"hi"},'
        '{"role":"assistant","content":[{"type":"tool_call","toolCallId":"c1","toolName":"x",'
        '"input":{"n":' + n + "}}]}]}}}"
    ).encode()


def test_invoke_refuses_an_integer_past_64_bits_naming_it(client: httpx.Client) -> None:
    r = client.post("/invoke", content=_invoke(BIG), headers={"content-type": "application/json"})
    assert r.status_code == 400
    (item,) = r.json()["detail"]
    assert item["type"] == "int_range" and BIG[:20] in item["msg"]


def test_invoke_keeps_the_largest_64_bit_integer_exactly(client: httpx.Client) -> None:
    r = client.post("/invoke", content=_invoke(EDGE_OK), headers={"content-type": "application/json"})
    assert r.status_code == 200
    task = r.headers["x-ag-task-id"]
    stored = client.get(f"/tasks/{task}/messages", params={"format": "agenta"}).json()["messages"]
    blocks = [b for m in stored if isinstance(m["content"], list) for b in m["content"]]
    calls = [b for b in blocks if b["type"] == "tool_call"]
    assert calls[0]["input"] == {"n": int(EDGE_OK)}


def test_a_digit_run_inside_a_string_is_not_an_integer(client: httpx.Client) -> None:
    body = b'{"data":{"inputs":{"messages":[{"role":"user","content":"call ' + BIG.encode() + b'"}]}}}'
    r = client.post("/invoke", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 200
    assert BIG in r.json()["data"]["outputs"]["messages"][-1]["content"]


def test_agentex_create_refuses_an_integer_past_64_bits(client: httpx.Client) -> None:
    task = client.post("/agents/name/demo/rpc", json={"method": "task/create", "params": {}}).json()["result"]
    content = '{"type":"data","author":"user","data":{"n":' + BIG + "}}"
    body = '{"task_id":"' + task["id"] + '","content":' + content + "}"
    r = client.post("/messages", content=body.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 422  # Agentex answers every body problem as a validation error
    assert r.json()["data"][0]["type"] == "int_range"
    assert client.get("/messages", params={"task_id": task["id"]}).json() == []


def test_rpc_answers_a_parse_error_for_an_integer_past_64_bits(client: httpx.Client) -> None:
    body = '{"method":"task/create","id":1,"params":{"params":{"n":' + BIG + "}}}"
    r = client.post(
        "/agents/name/demo/rpc", content=body.encode(), headers={"content-type": "application/json"}
    )
    assert r.status_code == 200
    assert r.json()["error"]["code"] == -32700


def test_convert_cli_refuses_an_integer_past_64_bits() -> None:
    exe = Path(sys.executable).with_name("turnwire")
    doc = '[{"role":"user","content":[{"type":"tool_call","toolCallId":"c","toolName":"t","input":{"n":' + BIG
    doc += "}}]}]"
    out = subprocess.run(
        [str(exe), "convert", "--from", "agenta", "--to", "agenta"],
        input=doc.encode(),
        capture_output=True,
        check=False,
    )
    assert out.returncode == 2
    assert b"64-bit" in out.stderr
