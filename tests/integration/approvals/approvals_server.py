"""Real turnwire servers for the approval tests: uvicorn on 127.0.0.1 in a thread, demo agent counted."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.model import Event
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app


@dataclass
class Server:
    """One running app: its URL and how many times its agent was started fresh (cold)."""

    url: str
    starts: list[TurnContext] = field(default_factory=list)


def counted(starts: list[TurnContext]):
    """The demo agent, recording each fresh start; returns the generator itself so a warm resume's
    ``asend`` reaches the demo (a resume never calls the agent again)."""

    def agent(ctx: TurnContext) -> AsyncIterator[Event]:
        starts.append(ctx)
        return demo_agent(ctx)

    return agent


@contextlib.contextmanager
def run_server(secret_file: Path, *, pool_max: int = 64, **settings: object) -> Iterator[Server]:
    starts: list[TurnContext] = []
    app = create_app(
        {"demo": counted(starts)},
        default_agent="demo",
        settings=Settings(
            approval_secret_file=str(secret_file), session_pool_max=pool_max, keepalive_seconds=0, **settings
        ),
    )
    with serve_app(app, lifespan="off") as url:
        yield Server(url, starts)
