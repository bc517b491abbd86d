"""``task/cancel`` cancels a task that exists, and only one: a name that names no task is the
not-found error an unknown ``task_id`` gets — nothing is created, no ``task_params`` stored."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from agentex_server import Server

RPC = "/agents/name/echo/rpc"


@pytest.fixture
def http(server: Server) -> Iterator[httpx.Client]:
    with server.http() as client:
        yield client


def rpc(http: httpx.Client, method: str, params: dict) -> dict:
    response = http.post(RPC, json={"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    assert response.status_code == 200
    return response.json()


def test_cancel_with_an_unknown_task_name_is_not_found_and_creates_nothing(http: httpx.Client) -> None:
    name = f"never-created-{uuid.uuid4().hex}"
    before = http.get("/tasks", params={"limit": 100}).json()

    reply = rpc(http, "task/cancel", {"task_name": name, "task_params": {"secret": "s3cr3t"}})

    assert reply["result"] is None
    by_id = rpc(http, "task/cancel", {"task_id": str(uuid.uuid4())})["error"]
    assert reply["error"]["code"] == by_id["code"] == -32602
    assert reply["error"]["message"] == f"Item with id {name!r} does not exist."
    assert http.get(f"/tasks/name/{name}").status_code == 404
    assert http.get("/tasks", params={"limit": 100}).json() == before


def test_cancel_by_name_cancels_the_named_task(http: httpx.Client) -> None:
    name = f"to-cancel-{uuid.uuid4().hex}"
    created = rpc(http, "task/create", {"name": name})["result"]

    reply = rpc(http, "task/cancel", {"task_name": name})

    assert reply["error"] is None
    assert reply["result"]["id"] == created["id"] and reply["result"]["status"] == "CANCELED"
    assert http.get(f"/tasks/name/{name}").json()["status"] == "CANCELED"
