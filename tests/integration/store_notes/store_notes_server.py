"""A real server with the demo agent on a given store (uvicorn in a thread, lifespan on)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app


def demo_server(db_url: str, home: Path) -> Iterator[str]:
    settings = Settings(db_url=db_url, approval_secret_file=str(home / "secret"), keepalive_seconds=0)
    with serve_app(create_app({"demo": demo_agent}, default_agent="demo", settings=settings)) as url:
        yield url
