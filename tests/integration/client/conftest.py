"""One real turnwire server (uvicorn on loopback, SQLite store) for the client tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from services import serve_app
from turnwire.server import Settings, create_app


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = Path(tmp_path_factory.mktemp("client-store")) / "client.db"
    app = create_app(settings=Settings(db_url=str(db), keepalive_seconds=0.2))
    with serve_app(app) as url:
        yield url
