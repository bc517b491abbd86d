"""Fixtures: one real uvicorn server with a SQLite store serving the demo agent (and a failing one)
on every door, for the AG-UI and OpenAI-compatible door tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.model import Event, MessageEvent
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app


async def broken(ctx: TurnContext) -> AsyncIterator[Event]:
    yield MessageEvent("about to fail")
    raise RuntimeError("broken agent")


@pytest.fixture(scope="session")
def wires_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("wires")
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{home / 'turnwire.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
        max_body_bytes=64 * 1024,
    )
    app = create_app({**builtin_agents(), "broken": broken}, default_agent="demo", settings=settings)
    with serve_app(app, lifespan="on") as url:
        yield url
