"""Two ``turnwire serve`` workers on one database and one real Redis: an A2A task running on one
is read, subscribed to and canceled through the other."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from services import serve_app, turnwire_process

pytestmark = pytest.mark.anyio
LONG = 80


@pytest.fixture
def workers(redis_url: str, tmp_path: Path) -> Iterator[tuple[str, str]]:
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    env = {"TURNWIRE_APPROVAL_SECRET_FILE": str(tmp_path / "secret")}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    args = ("--db", db, "--redis", redis_url, "--keepalive", "0")
    with (
        turnwire_process(tmp_path / "a", *args, env=env) as (url_a, _),
        turnwire_process(tmp_path / "b", *args, env=env) as (url_b, _),
    ):
        yield url_a, url_b


def rpc_body(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": uuid.uuid4().hex, "method": method, "params": params}


def send_params(text: str) -> dict[str, Any]:
    return {"message": {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}]}}


async def events_of(response: httpx.Response) -> Any:
    async for line in response.aiter_lines():
        if line.startswith("data: "):
            yield orjson.loads(line[6:])["result"]


async def test_a_task_on_one_worker_is_subscribed_to_and_canceled_on_the_other(
    workers: tuple[str, str],
) -> None:
    url_a, url_b = workers
    async with httpx.AsyncClient(timeout=30) as http:
        # Subscribe on B to a task streaming on A: every chunk, from the turn's first, then its end.
        # Only a working task can be subscribed to: the turn (50 ms a number) outlasts a loaded CI.
        body = rpc_body("SendStreamingMessage", send_params(f"count to {LONG}"))
        async with http.stream("POST", f"{url_a}/a2a", json=body) as streamed:
            stream = events_of(streamed)
            first = await anext(stream)
            task_id = first["task"]["id"]
            async with http.stream(
                "POST", f"{url_b}/a2a", json=rpc_body("SubscribeToTask", {"id": task_id})
            ) as sub:
                subscribed = [e async for e in events_of(sub)]
            _ = [e async for e in stream]
        chunks = [
            e["artifactUpdate"]["artifact"]["parts"][0]["text"] for e in subscribed if "artifactUpdate" in e
        ]
        assert chunks == [str(n) for n in range(1, LONG + 1)]
        assert subscribed[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
        got = (await http.post(f"{url_b}/a2a", json=rpc_body("GetTask", {"id": task_id}))).json()["result"]
        assert got["status"]["state"] == "TASK_STATE_COMPLETED" and len(got["artifacts"]) == LONG

        # Cancel on B a task streaming on A: A's stream ends canceled, the partial reply is stored.
        body = rpc_body("SendStreamingMessage", send_params("count to 200"))
        async with http.stream("POST", f"{url_a}/a2a", json=body) as streamed:
            stream = events_of(streamed)
            task_id = (await anext(stream))["task"]["id"]
            async for event in stream:
                if "artifactUpdate" in event:
                    break
            canceled = (await http.post(f"{url_b}/a2a", json=rpc_body("CancelTask", {"id": task_id}))).json()
            assert "result" in canceled, canceled  # the error says why, if B did not see the task
            assert canceled["result"]["status"]["state"] == "TASK_STATE_CANCELED", canceled
            rest = [e async for e in stream]
        assert rest[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_CANCELED"
        for _ in range(100):
            got = (await http.post(f"{url_b}/a2a", json=rpc_body("GetTask", {"id": task_id}))).json()[
                "result"
            ]
            if got["status"]["state"] == "TASK_STATE_CANCELED":
                break
            await asyncio.sleep(0.05)
        assert got["status"]["state"] == "TASK_STATE_CANCELED"
        assert 1 <= len(got["artifacts"]) < 200


RECEIVED: list[tuple[str | None, dict[str, Any]]] = []


async def _hook(request: Request) -> Response:
    RECEIVED.append((request.headers.get("x-a2a-notification-token"), orjson.loads(await request.body())))
    return Response(status_code=200)


@pytest.fixture
def pushing_workers(redis_url: str, tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    db = f"sqlite:///{tmp_path / 'shared.db'}"
    env = {"TURNWIRE_APPROVAL_SECRET_FILE": str(tmp_path / "secret")}
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    args = (
        "--db",
        db,
        "--redis",
        redis_url,
        "--keepalive",
        "0",
        "--a2a-push-allow",
        "http://127.0.0.1:*/hook",
    )
    with (
        serve_app(Starlette(routes=[Route("/hook", _hook, methods=["POST"])])) as receiver,
        turnwire_process(tmp_path / "a", *args, env=env) as (url_a, _),
        turnwire_process(tmp_path / "b", *args, env=env) as (url_b, _),
    ):
        yield url_a, url_b, receiver


async def test_a_webhook_registered_on_one_worker_gets_the_task_running_on_the_other(
    pushing_workers: tuple[str, str, str],
) -> None:
    url_a, url_b, receiver = pushing_workers
    RECEIVED.clear()
    async with httpx.AsyncClient(timeout=30) as http:
        body = rpc_body("SendStreamingMessage", send_params(f"count to {LONG}"))
        async with http.stream("POST", f"{url_a}/a2a", json=body) as streamed:
            stream = events_of(streamed)
            task_id = (await anext(stream))["task"]["id"]
            config = {"taskId": task_id, "id": "hook-1", "url": f"{receiver}/hook", "token": "t0k"}
            made = await http.post(f"{url_b}/a2a", json=rpc_body("CreateTaskPushNotificationConfig", config))
            assert made.json()["result"]["id"] == "hook-1", made.json()
            listed = await http.post(
                f"{url_a}/a2a", json=rpc_body("ListTaskPushNotificationConfigs", {"taskId": task_id})
            )
            assert [c["id"] for c in listed.json()["result"]["configs"]] == ["hook-1"]
            _ = [e async for e in stream]
        for _ in range(100):  # the sender delivers after the stream, in order, with retries
            if RECEIVED and "statusUpdate" in RECEIVED[-1][1]:
                break
            await asyncio.sleep(0.05)
    assert {token for token, _ in RECEIVED} == {"t0k"}
    last = RECEIVED[-1][1]["statusUpdate"]
    assert last["taskId"] == task_id and last["status"]["state"] == "TASK_STATE_COMPLETED"
    texts = [
        e["artifactUpdate"]["artifact"]["parts"][0]["text"] for _, e in RECEIVED if "artifactUpdate" in e
    ]
    # Registered once the turn ran: what came after the worker read the config, through the end.
    assert texts and texts == [str(n) for n in range(int(texts[0]), LONG + 1)]
