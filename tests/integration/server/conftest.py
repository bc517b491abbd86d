"""Fixtures: one real uvicorn server per session serving the built-in and the test agents."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from live_server import KEEPALIVE, MAX_BODY, Probe, boom, echo, gap, serve, sleeper

from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_app


@pytest.fixture(scope="session")
def probe() -> Probe:
    return Probe()


@pytest.fixture(scope="session")
def base_url(probe: Probe) -> Iterator[str]:
    agents = {**builtin_agents(), "echo": echo, "sleeper": sleeper(probe), "gap": gap, "boom": boom}
    settings = Settings(keepalive_seconds=KEEPALIVE, max_body_bytes=MAX_BODY)
    app = create_app(agents, default_agent="echo", settings=settings)
    with serve(app) as url:
        yield url


@pytest.fixture
def client(base_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=base_url, timeout=10) as c:
        yield c
