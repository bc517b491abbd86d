"""The turn doors answered by ``DoorRoute``'s lean handler: the same answers as FastAPI's handler
(key check, error bodies, headers), over a real loopback server, and FastAPI's handler whenever the
lean one could differ (a router included with its own dependency, a dependency override)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import Depends, FastAPI, HTTPException

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_app, create_router, install_error_handlers
from turnwire.server.app import app_context
from turnwire.server.http.request_id import RequestIdMiddleware
from turnwire.server.turns.door_route import DoorRoute

KEY = "door-route-key-" + "k" * 16
AUTH = {"authorization": f"Bearer {KEY}"}
HI = {"data": {"inputs": {"messages": [{"role": "user", "content": "hi"}]}}}
USER = {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "hi"}]}
CHAT = {"id": "door-chat", "messages": [USER]}
DOORS = ("/invoke", "/agents/demo/invoke", "/chat", "/agents/demo/chat", "/agui", "/agents/demo/agui")

# (method, path, headers, body): every refusal a door can give before its turn starts.
REFUSALS: list[tuple[str, str, dict[str, str], Any]] = [
    *[("POST", door, {}, HI) for door in DOORS],  # no key
    ("POST", "/invoke", {"authorization": "Basic abc"}, HI),
    ("POST", "/agents/demo/chat", {"authorization": "Token abc"}, CHAT),
    ("POST", "/invoke", {"authorization": "Bearer not-the-key-at-all-0000"}, HI),
    ("POST", "/v1/chat/completions", {}, {"model": "demo", "messages": []}),
    ("POST", "/agents/nobody/invoke", AUTH, HI),
    ("POST", "/agents/nobody/chat", AUTH, CHAT),
    ("POST", "/invoke", {**AUTH, "content-type": "application/json"}, b"{"),
    ("POST", "/invoke", {**AUTH, "content-type": "text/plain"}, b"hello"),
    ("POST", "/invoke", {**AUTH, "accept": "image/png"}, HI),
    ("POST", "/invoke", {**AUTH, "x-ag-messages-format": "klingon"}, HI),
    ("POST", "/invoke", AUTH, {"messages": []}),
    ("POST", "/invoke", AUTH, {**HI, "session_id": "has space"}),
    ("POST", "/chat", AUTH, {"messages": 3}),
    ("POST", "/chat", AUTH, {**CHAT, "trigger": "nope"}),
    ("POST", "/agui", AUTH, {"messages": "x"}),
    ("POST", "/v1/chat/completions", AUTH, {"model": "nobody", "messages": []}),
    ("POST", "/v1/chat/completions", AUTH, {"messages": []}),
    ("POST", "/v1/responses", {}, {"model": "demo", "input": "hi"}),
    ("POST", "/v1/responses", AUTH, {"model": "nobody", "input": "hi"}),
    ("POST", "/v1/responses", AUTH, {"model": "demo", "input": 3}),
    ("GET", "/invoke", AUTH, None),
    ("PUT", "/agents/demo/chat", AUTH, None),
]


def _settings(tmp_path: Path, name: str) -> Settings:
    return Settings(api_keys=f"ops:{KEY}", db_url=f"sqlite:///{tmp_path / name}.db")


def _served(tmp_path: Path) -> FastAPI:
    return create_app(builtin_agents(), settings=_settings(tmp_path, "served"))


async def _passes() -> None:
    return None


def _mounted(tmp_path: Path, name: str, *, extra: bool, handlers: bool) -> FastAPI:
    """``create_router`` in a user's app; ``extra``: included with a dependency of the user's own
    (FastAPI's handler then); ``handlers``: turnwire's error handlers and request ids, as served."""
    ctx = app_context(builtin_agents(), settings=_settings(tmp_path, name))
    app = FastAPI(lifespan=lambda app: ctx.running())
    dependencies = [Depends(_passes)] if extra else []
    app.include_router(create_router(context=ctx), dependencies=dependencies)
    if handlers:
        install_error_handlers(app)
        app.add_middleware(RequestIdMiddleware)
    return app


def _ask(http: httpx.Client, method: str, path: str, headers: dict[str, str], body: Any) -> httpx.Response:
    if isinstance(body, bytes):
        return http.request(method, path, content=body, headers=headers)
    return http.request(method, path, json=body, headers=headers)


def _answer(response: httpx.Response) -> tuple[int, bytes, dict[str, str]]:
    """What must be identical: status, body, and every header but the per-request ones."""
    varying = {"date", "x-request-id", "server"}
    headers = {k: v for k, v in response.headers.items() if k not in varying}
    return response.status_code, response.content, headers


@pytest.fixture
def urls(tmp_path: Path) -> Iterator[dict[str, str]]:
    apps = {
        "served": _served(tmp_path),
        "served-fastapi": _mounted(tmp_path, "served-fastapi", extra=True, handlers=True),
        "mounted": _mounted(tmp_path, "mounted", extra=False, handlers=False),
        "mounted-fastapi": _mounted(tmp_path, "mounted-fastapi", extra=True, handlers=False),
    }
    with ExitStack() as stack:
        yield {name: stack.enter_context(serve_app(app)) for name, app in apps.items()}


def test_the_served_doors_are_lean_routes() -> None:
    app = create_app(builtin_agents(), settings=Settings(api_keys=f"ops:{KEY}"))
    doors = {r.path for r in app.routes if isinstance(r, DoorRoute) and r._lean_for and r._lean_for[1]}
    paths = {"/invoke", "/chat", "/agui", "/v1/chat/completions", "/v1/responses"}
    assert doors >= {*paths, "/agents/{name}/invoke", "/agents/{name}/chat", "/agents/{name}/agui"}


def test_refusals_are_the_same_as_fastapis_handler_gives(urls: dict[str, str]) -> None:
    with ExitStack() as stack:
        clients = {n: stack.enter_context(httpx.Client(base_url=url, timeout=30)) for n, url in urls.items()}
        for method, path, headers, body in REFUSALS:
            answers = {name: _answer(_ask(c, method, path, headers, body)) for name, c in clients.items()}
            status = answers["served"][0]
            assert 400 <= status < 500, (method, path, answers["served"])
            assert answers["served"] == answers["served-fastapi"], (method, path)
            assert answers["mounted"] == answers["mounted-fastapi"], (method, path)
            if status == 401:
                detail = httpx.Response(401, content=answers["served"][1]).json()["detail"]
                assert detail[0]["loc"] == ["header", "authorization"]
                assert answers["served"][2]["www-authenticate"] == "Bearer"


def test_a_door_streams_with_the_key_on_every_app(urls: dict[str, str]) -> None:
    for name, url in urls.items():
        with httpx.Client(base_url=url, timeout=30, headers=AUTH) as http:
            invoke = http.post("/agents/demo/invoke", json=HI, headers={"accept": "text/event-stream"})
            assert invoke.status_code == 200, (name, invoke.text)
            assert invoke.headers["content-type"] == "text/event-stream; charset=utf-8"
            done = '"stopReason":"end_turn","traceId":"' + invoke.headers["x-ag-trace-id"] + '"}}'
            assert invoke.text.rstrip().endswith(done)
            chat = http.post("/chat", json={**CHAT, "id": f"chat-{name}"})
            assert chat.status_code == 200 and chat.text.endswith("data: [DONE]\n\n"), name
            assert chat.headers["x-ag-session-id"] == f"chat-{name}"


def test_a_router_included_with_its_own_dependency_runs_it_on_the_doors(tmp_path: Path) -> None:
    async def refuse() -> None:
        raise HTTPException(403, "not on my app")

    ctx = app_context(builtin_agents(), settings=Settings())
    app = FastAPI()
    app.include_router(create_router(context=ctx), prefix="/ai", dependencies=[Depends(refuse)])
    with serve_app(app, lifespan="off") as url, httpx.Client(base_url=f"{url}/ai", timeout=30) as http:
        for door in (*DOORS, "/v1/chat/completions", "/v1/responses"):
            refused = http.post(door, json=HI)
            assert (refused.status_code, refused.json()) == (403, {"detail": "not on my app"}), door


def test_a_dependency_override_set_after_mounting_reaches_the_doors() -> None:
    ctx = app_context(builtin_agents(), settings=Settings())
    app = FastAPI()
    app.include_router(create_router(context=ctx))
    with serve_app(app, lifespan="off") as url, httpx.Client(base_url=url, timeout=30) as http:
        assert http.post("/invoke", json=HI).status_code == 200

        async def teapot() -> None:
            raise HTTPException(418, "overridden")

        app.dependency_overrides[ctx.bind] = teapot
        assert http.post("/invoke", json=HI).status_code == 418
        assert http.post("/agents/demo/chat", json=CHAT).status_code == 418
        app.dependency_overrides.clear()
        assert http.post("/invoke", json=HI).status_code == 200
