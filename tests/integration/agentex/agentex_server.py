"""A real uvicorn server on loopback serving the Agentex routes from a real store.

Parametrised over SQLite and PostgreSQL; each module gets fresh databases.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import httpx
import pytest
from agentex import Agentex
from fastapi import FastAPI

from services import serve_app
from store_databases import BACKENDS, fresh_database
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart, Thought, ToolCall
from turnwire.runtime.context import TurnContext
from turnwire.server import Settings, create_app


async def echo(ctx: TurnContext) -> AsyncIterator[Event]:
    """Echoes the last user message back, streamed, then calls a tool."""
    yield Thought("thinking")
    yield MessageStart("m1")
    yield MessageDelta("m1", "echo: ")
    yield MessageDelta("m1", ctx.last_user_text())
    yield MessageEnd("m1")
    yield ToolCall(id="c1", name="lookup", input={"q": ctx.last_user_text()})


async def quiet(ctx: TurnContext) -> AsyncIterator[Event]:
    """Says nothing."""
    return
    yield


@dataclass
class Server:
    base_url: str
    db_url: str
    backend: str

    def client(self, **kw: object) -> Agentex:
        return Agentex(base_url=self.base_url, max_retries=0, **kw)  # type: ignore[arg-type]

    def http(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=30)


def build_app(db_url: str) -> FastAPI:
    return create_app({"echo": echo, "quiet": quiet}, settings=Settings(db_url=db_url))


@pytest.fixture(scope="module", params=BACKENDS)
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    pg = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    db_url = fresh_database(request.param, tmp_path_factory.mktemp("agentex"), pg)
    with serve_app(build_app(db_url)) as base_url:
        yield Server(base_url, db_url, request.param)
