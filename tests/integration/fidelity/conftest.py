"""One real server with a SQLite store for the fidelity tests (uvicorn in a thread, lifespan on)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fidelity_agents import counter, events, scripted, shout, twice

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.server import Settings, create_app


def fidelity_app(tmp: Path, **settings: object) -> object:
    return create_app(
        {
            "demo": demo_agent,
            "shout": shout,
            "twice": twice,
            "counter": counter,
            "scripted": scripted,
            "events": events,
        },
        default_agent="demo",
        settings=Settings(
            db_url=f"sqlite:///{tmp / 'fidelity.db'}",
            approval_secret_file=str(tmp / "secret"),
            keepalive_seconds=0,
            **settings,
        ),
    )


@pytest.fixture(scope="session")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fidelity")


@pytest.fixture(scope="session")
def store_path(home: Path) -> Path:
    return home / "fidelity.db"


@pytest.fixture(scope="session")
def server(home: Path) -> Iterator[str]:
    with serve_app(fidelity_app(home)) as url:
        yield url
