"""Fixtures: one real uvicorn server with a SQLite store serving the demo agent (and a failing one)
on every door, for the AG-UI and OpenAI-compatible door tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.model import Done, Event, InteractionKind, InteractionRequest, MessageEvent, ToolResultBlock
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app


async def broken(ctx: TurnContext) -> AsyncIterator[Event]:
    yield MessageEvent("about to fail")
    raise RuntimeError("broken agent")


PICK_CALL = "pick_1"


def _offered(ctx: TurnContext) -> list[str]:
    """Names of the tools the client offers, on the AG-UI door or the OpenAI door."""
    agui = ctx.parameters.get("agui") or {}
    names = [t.get("name") for t in agui.get("tools") or []]
    openai = ctx.parameters.get("openai") or {}
    names += [(t.get("function") or {}).get("name") for t in openai.get("tools") or []]
    return [n for n in names if isinstance(n, str)]


async def picker(ctx: TurnContext) -> AsyncIterator[Event]:
    """Asks the client to run its ``pick_color`` tool (a client tool), then says what was picked."""
    for message in ctx.messages:
        for block in message.content:
            if isinstance(block, ToolResultBlock) and block.id == PICK_CALL:
                yield MessageEvent(f"You picked {block.output}.")
                yield Done("end_turn")
                return
    if "pick_color" not in _offered(ctx):
        yield MessageEvent("No color picker offered.")
        return
    yield MessageEvent("Pick a color.")
    payload = {"toolCallId": PICK_CALL, "toolName": "pick_color", "input": {"options": ["red", "blue"]}}
    yield InteractionRequest("pick", InteractionKind.CLIENT_TOOL, payload)
    yield Done("paused")


@pytest.fixture(scope="session")
def wires_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("wires")
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{home / 'turnwire.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
        max_body_bytes=64 * 1024,
    )
    app = create_app(
        {**builtin_agents(), "broken": broken, "picker": picker}, default_agent="demo", settings=settings
    )
    with serve_app(app, lifespan="on") as url:
        yield url
