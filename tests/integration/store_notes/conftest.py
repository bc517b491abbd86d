"""Real servers with the demo agent on a store of each engine, for the store-notes tests."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from store_notes_server import demo_server

from store_databases import BACKENDS, fresh_database


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    pg = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    return fresh_database(request.param, tmp_path, pg)


@pytest.fixture
def server(db_url: str, tmp_path: Path) -> Iterator[str]:
    yield from demo_server(db_url, tmp_path)
