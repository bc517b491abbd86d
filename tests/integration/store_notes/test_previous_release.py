"""A database the previous release wrote (``tests/fixtures/previous_release``) opens, migrates and
reads back, in every format, exactly as that release read it; its rewinds become branches.

On SQLite the fixture file itself is migrated (a copy); on PostgreSQL its rows are loaded into a
database at schema step 5, as that release would have left it, and migrated there.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
import sqlalchemy as sa
from door_turns import FORMATS, reads
from sqlalchemy.ext.asyncio import create_async_engine
from store_notes_server import demo_server

from store_databases import execute
from turnwire.store import schema

FIXTURE = Path(__file__).parents[2] / "fixtures" / "previous_release"
PREVIOUS: dict[str, dict[str, Any]] = orjson.loads((FIXTURE / "previous_reads.json").read_bytes())
TABLES = (schema.tasks, schema.messages, schema.idempotency_keys, schema.writers, schema.decisions)


async def _load_into_postgres(url: str) -> None:
    """The fixture's rows in a PostgreSQL database built by steps 1-5 (the previous release's)."""
    source = sqlite3.connect(FIXTURE / "previous.db")
    source.row_factory = sqlite3.Row
    engine = create_async_engine(url.replace("postgresql://", "postgresql+asyncpg://"))
    try:
        async with engine.begin() as conn:
            await conn.run_sync(schema.schema_migrations.metadata.create_all)
            for version, description, step in schema.MIGRATIONS[:5]:
                await step(conn)
                values = {"version": version, "description": description, "applied_at": 0}
                await conn.execute(schema.schema_migrations.insert().values(**values))
            # Step 1 builds today's ``messages``: leave its later columns as step 5 had them (absent).
            await conn.execute(sa.text("ALTER TABLE messages DROP COLUMN note, DROP COLUMN parent_id"))
            for table in TABLES:
                rows = [dict(r) for r in source.execute(f"SELECT * FROM {table.name}")]
                for row in rows:
                    for column in table.c:
                        if isinstance(column.type, sa.Boolean) and row.get(column.name) is not None:
                            row[column.name] = bool(row[column.name])
                if rows:
                    columns = list(rows[0])
                    await conn.execute(sa.insert(sa.table(table.name, *map(sa.column, columns))), rows)
    finally:
        await engine.dispose()
        source.close()


@pytest.fixture
def previous_url(db_url: str, tmp_path: Path) -> str:
    """``db_url`` holding what the previous release wrote."""
    if db_url.startswith("sqlite:///"):
        shutil.copyfile(FIXTURE / "previous.db", db_url.removeprefix("sqlite:///"))
    else:
        asyncio.run(_load_into_postgres(db_url))
    return db_url


@pytest.fixture
def migrated(previous_url: str, tmp_path: Path):
    yield from demo_server(previous_url, tmp_path)


def test_the_fixture_was_written_with_notes_inside_the_contents() -> None:
    # What this test migrates: contents carrying the previous release's "turnwire" notes.
    with sqlite3.connect(FIXTURE / "previous.db") as db:
        contents = [orjson.loads(c) for (c,) in db.execute("SELECT content FROM messages")]
        versions = [v for (v,) in db.execute("SELECT version FROM schema_migrations")]
    assert max(versions) == 5
    assert sum("turnwire" in c for c in contents) > len(contents) / 2
    assert sum(c.get("data", {}).get("type") == "turnwire.rewind" for c in contents) == 2


@pytest.mark.parametrize("session", sorted(PREVIOUS))
def test_every_conversation_reads_back_as_the_previous_release_read_it(migrated: str, session: str) -> None:
    assert reads(migrated, session) == PREVIOUS[session]


def test_after_migration_no_content_holds_a_note_and_the_notes_are_beside_them(
    migrated: str, previous_url: str
) -> None:
    httpx.get(f"{migrated}/tasks/agui/messages", timeout=10)  # the store has opened (and migrated)
    rows, versions = asyncio.run(
        execute(
            previous_url,
            "SELECT content, note, parent_id FROM messages",
            "SELECT version FROM schema_migrations ORDER BY version",
        )
    )
    assert versions[-1] == (6,)
    assert not [content for content, _, _ in rows if "turnwire" in orjson.loads(content)]
    notes = [orjson.loads(note) for _, note, _ in rows if note]
    assert {"message_id", "turn"} <= {key for note in notes for key in note}
    # Every message but the first of each of the eight tasks knows its parent.
    assert sum(parent is None for _, _, parent in rows) == len(PREVIOUS)


def _texts(messages: list[dict[str, Any]]) -> list[str]:
    return [m["content"]["content"] for m in messages if m["content"]["type"] == "text"]


def test_the_previous_releases_rewinds_are_branches(migrated: str) -> None:
    """``chat-rewind``: two turns, the second question edited, then its answer regenerated."""
    r = httpx.get(f"{migrated}/tasks/chat-rewind/branches", timeout=10)
    assert r.status_code == 200
    branches = r.json()["branches"]
    assert [b["latest"] for b in branches] == [False, False, True]
    first, edited, regenerated = branches
    read = {
        b["leaf_id"]: httpx.get(
            f"{migrated}/tasks/chat-rewind/messages", params={"branch": b["leaf_id"]}, timeout=10
        ).json()["messages"]
        for b in branches
    }
    assert _texts(read[first["leaf_id"]]) == [
        "hello one",
        "You said: hello one",
        "hello two",
        "You said: hello two",
    ]
    assert _texts(read[edited["leaf_id"]]) == [
        "hello one",
        "You said: hello one",
        "hello edited",
        "You said: hello edited",
    ]
    assert _texts(read[regenerated["leaf_id"]]) == _texts(read[edited["leaf_id"]])
    # The edit left the first branch after the first answer (user, reasoning, answer); the
    # regenerate left the edited branch after the edited question.
    answer, question = read[first["leaf_id"]][2]["id"], read[edited["leaf_id"]][3]["id"]
    assert first["fork_id"] == answer
    assert edited["fork_id"] == regenerated["fork_id"] == question
    # The default read is the latest branch, as the previous release read it.
    assert read[regenerated["leaf_id"]] == PREVIOUS["chat-rewind"]["agentex"]["messages"]
    assert set(FORMATS) == set(PREVIOUS["chat-rewind"])
