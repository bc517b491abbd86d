"""A router mounted in someone else's app: one context, its limits on every route, its store."""

from __future__ import annotations

from pathlib import Path

import httpx
from fastapi import FastAPI

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_router
from turnwire.server.app import app_context

LIMIT = 2_000


def _app(tmp_path: Path) -> FastAPI:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'mounted.db'}", max_body_bytes=LIMIT)
    ctx = app_context(builtin_agents(), settings=settings)
    app = FastAPI(lifespan=lambda app: ctx.running())  # as docs/server.md shows
    app.include_router(create_router(context=ctx), prefix="/ai")
    return app


def test_a_mounted_router_applies_its_limits_on_every_route_and_records(tmp_path: Path) -> None:
    big = "x" * (LIMIT + 10)
    with serve_app(_app(tmp_path)) as url, httpx.Client(base_url=f"{url}/ai", timeout=30) as http:
        invoke = {"data": {"inputs": {"messages": [{"role": "user", "content": big}]}}}
        assert http.post("/invoke", json=invoke).status_code == 413
        assert (
            http.post("/chat", json={"messages": [{"role": "user", "parts": [], "x": big}]}).status_code
            == 413
        )
        rpc = {"jsonrpc": "2.0", "id": 1, "method": "task/create", "params": {"name": big}}
        assert http.post("/agents/name/demo/rpc", json=rpc).status_code == 413
        assert (
            http.post(
                "/messages", json={"task_id": "t", "content": {"type": "text", "content": big}}
            ).status_code
            == 413
        )

        small = {
            "session_id": "mounted-1",
            "data": {"inputs": {"messages": [{"role": "user", "content": "hi"}]}},
        }
        answer = http.post("/invoke", json=small)
        assert answer.status_code == 200 and answer.headers["x-ag-task-id"]
        stored = http.get("/tasks/mounted-1/messages", params={"format": "agenta"}).json()["messages"]
        assert [m["role"] for m in stored] == ["user", "assistant"]
        assert stored[-1]["content"] == "You said: hi"
