"""Fresh databases for store and Agentex tests: a SQLite file or a new PostgreSQL database."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import create_async_engine

BACKENDS = ("sqlite", "postgres")


async def _admin(url: str, statement: str) -> None:
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as conn:
            await conn.execute(sa.text(statement))
    finally:
        await engine.dispose()


def fresh_database(backend: str, tmp_dir: Path, postgres_url: str | None) -> str:
    """The URL of a new, empty database on ``backend``."""
    if backend == "sqlite":
        return f"sqlite:///{tmp_dir / f'tw-{uuid.uuid4().hex[:8]}.db'}"
    assert postgres_url is not None
    name = f"tw_{uuid.uuid4().hex[:12]}"
    asyncio.run(_admin(postgres_url, f'CREATE DATABASE "{name}"'))
    return postgres_url.rsplit("/", 1)[0] + f"/{name}"


async def execute(url: str, *statements: str) -> list[list[tuple]]:
    """Run raw SQL on ``url`` (outside any store), returning each statement's rows."""
    engine = create_async_engine(url.replace("sqlite:///", "sqlite+aiosqlite:///"))
    out = []
    try:
        async with engine.begin() as conn:
            for statement in statements:
                result = await conn.execute(sa.text(statement))
                out.append([tuple(r) for r in result] if result.returns_rows else [])
    finally:
        await engine.dispose()
    return out


FAIL_ON_BOOM = {
    # A real database failure in the middle of a batch: the insert of a row whose content holds
    # the marker aborts the statement, after earlier rows of the same batch were written.
    "sqlite": [
        "CREATE TRIGGER fail_on_boom BEFORE INSERT ON messages WHEN NEW.content LIKE '%BOOM%' "
        "BEGIN SELECT RAISE(ABORT, 'injected failure'); END"
    ],
    "postgres": [
        "CREATE OR REPLACE FUNCTION fail_on_boom() RETURNS trigger AS $$ BEGIN "
        "IF NEW.content LIKE '%BOOM%' THEN RAISE EXCEPTION 'injected failure'; END IF; RETURN NEW; END $$ "
        "LANGUAGE plpgsql",
        "CREATE TRIGGER fail_on_boom BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION fail_on_boom()",
    ],
}
