from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from store_databases import BACKENDS, fresh_database
from turnwire.store import SqlStore


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    pg = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    return fresh_database(request.param, tmp_path, pg)


@pytest.fixture
async def store(db_url: str) -> AsyncIterator[SqlStore]:
    s = SqlStore(db_url)
    await s.open()
    try:
        yield s
    finally:
        await s.close()
