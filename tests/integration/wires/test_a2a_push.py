"""A2A push notifications: a task's stream responses POSTed to a webhook receiver on loopback with
the client's token, only to URLs the operator allowed; loopback and private addresses refused
unless an allowed pattern names the host."""

from __future__ import annotations

import time
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

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_app
from turnwire.server.doors.a2a.push import refusal

RECEIVED: list[tuple[str, str | None, dict[str, Any]]] = []


async def hook(request: Request) -> Response:
    RECEIVED.append(
        (
            request.url.path,
            request.headers.get("x-a2a-notification-token"),
            orjson.loads(await request.body()),
        )
    )
    return Response(status_code=200)


@pytest.fixture(scope="module")
def receiver() -> Iterator[str]:
    with serve_app(Starlette(routes=[Route("/hook/{name}", hook, methods=["POST"])])) as url:
        yield url


@pytest.fixture(scope="module")
def push_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("push")
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{home / 'turnwire.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
        a2a_push_allow="http://127.0.0.1:*/hook/*",
    )
    with serve_app(create_app(builtin_agents(), settings=settings), lifespan="on") as url:
        yield url


def rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    r = httpx.post(f"{url}/a2a", json=body, timeout=20)
    assert r.status_code == 200, r.text
    return r.json()


def received(name: str, count_final: int = 1, timeout: float = 10) -> list[tuple[str | None, dict[str, Any]]]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        mine = [(token, body) for path, token, body in RECEIVED if path == f"/hook/{name}"]
        finals = [
            b
            for _, b in mine
            if b.get("statusUpdate", {}).get("status", {}).get("state") != "TASK_STATE_WORKING"
            and "statusUpdate" in b
        ]
        if len(finals) >= count_final:
            return mine
        time.sleep(0.05)
    raise AssertionError(f"no final push for {name}: {RECEIVED}")


def user(text: str, **extra: Any) -> dict[str, Any]:
    return {"messageId": uuid.uuid4().hex, "role": "ROLE_USER", "parts": [{"text": text}], **extra}


def test_the_card_says_push_is_on(push_url: str) -> None:
    assert (
        httpx.get(f"{push_url}/.well-known/agent-card.json").json()["capabilities"]["pushNotifications"]
        is True
    )


def test_a_send_with_a_webhook_pushes_every_event_with_the_token(push_url: str, receiver: str) -> None:
    name = uuid.uuid4().hex[:8]
    config = {"url": f"{receiver}/hook/{name}", "token": "secret-token"}
    params = {"message": user("count to 3"), "configuration": {"taskPushNotificationConfig": config}}
    task = rpc(push_url, "SendMessage", params)["result"]["task"]
    pushed = received(name)
    assert {token for token, _ in pushed} == {"secret-token"}
    bodies = [b for _, b in pushed]
    assert bodies[0]["task"]["id"] == task["id"]
    chunks = [b["artifactUpdate"]["artifact"]["parts"][0]["text"] for b in bodies if "artifactUpdate" in b]
    assert chunks == ["1", "2", "3"]
    assert bodies[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"


def test_configs_on_a_paused_task_push_its_continuation(push_url: str, receiver: str) -> None:
    paused = rpc(push_url, "SendMessage", {"message": user("delete p.txt")})["result"]["task"]
    name = uuid.uuid4().hex[:8]
    created = rpc(
        push_url,
        "CreateTaskPushNotificationConfig",
        {"taskId": paused["id"], "url": f"{receiver}/hook/{name}", "token": "t2"},
    )["result"]
    assert created["taskId"] == paused["id"] and created["url"].endswith(name)
    listed = rpc(push_url, "ListTaskPushNotificationConfigs", {"taskId": paused["id"]})["result"]["configs"]
    assert [c["id"] for c in listed] == [created["id"]]
    got = rpc(push_url, "GetTaskPushNotificationConfig", {"taskId": paused["id"], "id": created["id"]})[
        "result"
    ]
    assert got == created
    token = paused["status"]["message"]["parts"][0]["data"]["interactionToken"]
    answer = user("", taskId=paused["id"]) | {
        "parts": [{"data": {"approved": True, "interactionToken": token}}]
    }
    rpc(push_url, "SendMessage", {"message": answer})
    bodies = [b for _, b in received(name)]
    assert bodies[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert (
        rpc(push_url, "DeleteTaskPushNotificationConfig", {"taskId": paused["id"], "id": created["id"]})[
            "result"
        ]
        == {}
    )
    assert (
        rpc(push_url, "ListTaskPushNotificationConfigs", {"taskId": paused["id"]})["result"]["configs"] == []
    )


def test_a_webhook_the_operator_did_not_allow_is_refused_and_nothing_runs(push_url: str) -> None:
    for url in (
        "http://127.0.0.2:9/hook/x",
        "http://127.0.0.1:9/other",
        "ftp://127.0.0.1/hook/x",
        "nonsense",
    ):
        params = {
            "message": user("count to 2"),
            "configuration": {"taskPushNotificationConfig": {"url": url}},
        }
        error = rpc(push_url, "SendMessage", params)["error"]
        assert error["code"] == -32602 and error["data"]["field"].endswith(
            "taskPushNotificationConfig.url"
        ), error
    missing = rpc(
        push_url,
        "CreateTaskPushNotificationConfig",
        {"taskId": "nobody~abc", "url": "http://127.0.0.1:1/hook/a"},
    )
    assert missing["error"]["code"] == -32001


@pytest.mark.parametrize(
    ("url", "patterns", "allowed"),
    [
        ("https://hooks.example.com/a", ["https://hooks.example.com/*"], True),
        ("https://evil.example.com/a", ["https://hooks.example.com/*"], False),
        ("http://127.0.0.1:8080/hook/a", ["http://*"], False),  # a wildcard host never opens loopback
        ("http://127.0.0.1:8080/hook/a", ["http://127.0.0.1:*/hook/*"], True),  # named: the operator meant it
        ("http://10.0.0.5/hook", ["http://*/hook"], False),
        ("http://169.254.169.254/latest", ["http://*"], False),  # cloud metadata
        ("http://[::1]/hook", ["http://*"], False),
        ("file:///etc/passwd", ["*"], False),
    ],
)
def test_the_allow_list_and_address_rules(url: str, patterns: list[str], allowed: bool) -> None:
    assert (refusal(url, patterns) is None) is allowed


def test_a_public_name_resolving_to_a_private_address_is_refused() -> None:
    assert refusal("https://hooks.example.com/a", ["https://*"], ["10.1.2.3"]) is not None
    assert refusal("https://hooks.example.com/a", ["https://*"], ["93.184.216.34"]) is None
