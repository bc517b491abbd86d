"""Tables of the store and their ordered, versioned migrations.

``schema_migrations`` records each applied step. Steps only ever get appended: a released step
is never edited, a change is a new step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.schema import CreateTable

from turnwire.store.note_migration import move_notes_and_link_parents

metadata = sa.MetaData()

tasks = sa.Table(
    "tasks",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("name", sa.Text),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("status_reason", sa.Text),
    sa.Column("params", sa.Text),  # JSON text
    sa.Column("task_metadata", sa.Text),  # JSON text
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    # Allocation state for messages, updated under the task row's write lock.
    sa.Column("next_seq", sa.BigInteger, nullable=False, server_default="0"),
    sa.Column("last_created_at", sa.BigInteger, nullable=False, server_default="0"),
    # Who the task belongs to (an API key's tenant; "" when the server runs without keys). Names are
    # unique per tenant, so two tenants may each have a session called "chat".
    sa.Column("tenant", sa.String(64), nullable=False, server_default=""),
    sa.UniqueConstraint("tenant", "name", name="uq_tasks_tenant_name"),
)

messages = sa.Table(
    "messages",
    metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("task_id", sa.String(64), sa.ForeignKey("tasks.id"), nullable=False),
    sa.Column("seq", sa.BigInteger, nullable=False),
    sa.Column("content", sa.Text, nullable=False),  # JSON text of a normalised TaskMessageContent
    sa.Column("streaming_status", sa.String(16)),
    sa.Column("created_at", sa.BigInteger, nullable=False),
    sa.Column("updated_at", sa.BigInteger, nullable=False),
    # The server process streaming the message (``writers.id``); NULL when no lease owns it.
    sa.Column("writer_id", sa.String(64)),
    # What the store knows beside the content (JSON text, ``formats.agentex.annotations``); the
    # content itself is exactly the wire's. NULL: nothing.
    sa.Column("note", sa.Text),
    # The message before this one in its branch of the conversation (NULL: the first). A rewind
    # hangs a new branch on an earlier message; reading follows the parents from a leaf.
    sa.Column("parent_id", sa.String(64)),
    sa.UniqueConstraint("task_id", "seq", name="uq_messages_task_seq"),
)

idempotency_keys = sa.Table(
    "idempotency_keys",
    metadata,
    sa.Column("scope", sa.String(32), primary_key=True),
    sa.Column("key", sa.String(255), primary_key=True),
    sa.Column("fingerprint", sa.String(64), nullable=False),
    sa.Column("response", sa.Text),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)

# Server processes that stream into the store, each holding a lease it renews while alive. In its
# own MetaData: migration 1 creates ``metadata`` as it is today, and this table belongs to step 3.
writers_metadata = sa.MetaData()
writers = sa.Table(
    "writers",
    writers_metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("host", sa.Text, nullable=False),  # hostname/boot id/pid namespace: where pid means something
    sa.Column("pid", sa.Integer, nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=False),
    sa.Column("lease_until", sa.BigInteger, nullable=False),
)

# One-shot approval decisions: the first request carrying a decision claims its token here; every
# later request with the same token finds the claim (step 5, its own MetaData like ``writers``).
decisions_metadata = sa.MetaData()
decisions = sa.Table(
    "decisions",
    decisions_metadata,
    sa.Column("task_id", sa.String(64), primary_key=True),
    sa.Column("token_digest", sa.String(64), primary_key=True),  # SHA-256 hex of the approval token
    sa.Column("tool_call_id", sa.Text, nullable=False),
    sa.Column("approved", sa.Boolean, nullable=False),
    # running: a turn acting on it holds it; done: that turn ran the call; open: that turn ended
    # without running it (the agent still waits on other gates), so the next request may take it.
    sa.Column("state", sa.String(8), nullable=False, server_default="running"),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)

# Streamed turns open on a task, by writer (``store.open_turns``): a turn a dead process left between
# two messages is marked interrupted like one cut mid-message (step 6, its own MetaData).
open_turns_metadata = sa.MetaData()
open_turns = sa.Table(
    "open_turns",
    open_turns_metadata,
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("task_id", sa.String(64), nullable=False),
    sa.Column("writer_id", sa.String(64), nullable=False),
    sa.Column("started_at", sa.BigInteger, nullable=False),
    sa.Index("ix_open_turns_writer", "writer_id"),
)

# Webhooks A2A clients registered for their tasks' updates (``store.push_configs``, step 8): kept
# here so the worker running a turn finds a config registered through any other worker.
push_configs_metadata = sa.MetaData()
push_configs = sa.Table(
    "a2a_push_configs",
    push_configs_metadata,
    sa.Column("tenant", sa.String(64), primary_key=True),
    sa.Column("task_id", sa.String(255), primary_key=True),
    sa.Column("id", sa.String(255), primary_key=True),
    sa.Column("config", sa.Text, nullable=False),  # JSON text: id, taskId, url, token
    sa.Column("created_at", sa.BigInteger, nullable=False),
)

# Stateless Chat Completions clients resend their whole conversation; its digest finds the session
# it continues (``store.chat_digests``, step 9).
chat_digests_metadata = sa.MetaData()
chat_digests = sa.Table(
    "chat_digests",
    chat_digests_metadata,
    sa.Column("tenant", sa.String(64), primary_key=True),
    sa.Column("digest", sa.String(64), primary_key=True),  # SHA-256 hex
    sa.Column("session_id", sa.Text, nullable=False),
    sa.Column("created_at", sa.BigInteger, nullable=False),
)

# Agentex spans: the traced turns' (``invoke_agent``, ``execute_tool``) and those clients create,
# per tenant, readable by every worker (``store.spans``, step 10). Times in store units (µs).
spans_metadata = sa.MetaData()
spans = sa.Table(
    "spans",
    spans_metadata,
    sa.Column("tenant", sa.String(64), primary_key=True),
    sa.Column("id", sa.String(255), primary_key=True),
    sa.Column("trace_id", sa.String(255)),
    sa.Column("parent_id", sa.String(255)),
    sa.Column("task_id", sa.String(255)),
    # The conversation of a turn's span: a resumed turn finds the paused one it links to.
    sa.Column("session_id", sa.Text),
    sa.Column("name", sa.Text),
    sa.Column("start_time", sa.BigInteger),
    sa.Column("end_time", sa.BigInteger),
    sa.Column("input", sa.Text),  # JSON text
    sa.Column("output", sa.Text),
    sa.Column("data", sa.Text),
    sa.Index("ix_spans_task", "tenant", "task_id", "start_time"),
    sa.Index("ix_spans_trace", "tenant", "trace_id", "start_time"),
    sa.Index("ix_spans_session", "tenant", "session_id", "start_time"),
)

schema_migrations = sa.Table(
    "schema_migrations",
    sa.MetaData(),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("description", sa.Text, nullable=False),
    sa.Column("applied_at", sa.BigInteger, nullable=False),
)


async def _v1_initial(conn: AsyncConnection) -> None:
    await conn.run_sync(metadata.create_all)
    await conn.execute(
        sa.text("CREATE INDEX ix_messages_task_created ON messages (task_id, created_at, seq)")
    )


async def _v2_order_index(conn: AsyncConnection) -> None:
    # Listing order is (created_at DESC, seq ASC): an index in exactly that order lets both page
    # directions seek and stop after one page instead of sorting the task's messages.
    await conn.execute(sa.text("DROP INDEX IF EXISTS ix_messages_task_created"))
    await conn.execute(
        sa.text("CREATE INDEX ix_messages_task_order ON messages (task_id, created_at DESC, seq ASC)")
    )


async def _v3_writers(conn: AsyncConnection) -> None:
    # A database created by step 1 after this column joined ``messages`` already has it.
    columns = await conn.run_sync(lambda c: {col["name"] for col in sa.inspect(c).get_columns("messages")})
    if "writer_id" not in columns:
        await conn.execute(sa.text("ALTER TABLE messages ADD COLUMN writer_id VARCHAR(64)"))
    await conn.run_sync(writers_metadata.create_all)
    # Crash repair looks for open messages by writer: a partial index keeps that cheap.
    await conn.execute(
        sa.text(
            "CREATE INDEX ix_messages_open_by_writer ON messages (writer_id) "
            "WHERE streaming_status = 'IN_PROGRESS'"
        )
    )


async def _v4_tenants(conn: AsyncConnection) -> None:
    columns = await conn.run_sync(lambda c: {col["name"] for col in sa.inspect(c).get_columns("tasks")})
    if "tenant" in columns:  # created by step 1 after the column joined ``tasks``
        return
    if conn.dialect.name == "postgresql":
        uniques = await conn.run_sync(lambda c: sa.inspect(c).get_unique_constraints("tasks"))
        await conn.execute(sa.text("ALTER TABLE tasks ADD COLUMN tenant VARCHAR(64) NOT NULL DEFAULT ''"))
        for unique in uniques:
            if unique["column_names"] == ["name"] and unique["name"]:
                await conn.execute(sa.text(f'ALTER TABLE tasks DROP CONSTRAINT "{unique["name"]}"'))
        await conn.execute(
            sa.text("ALTER TABLE tasks ADD CONSTRAINT uq_tasks_tenant_name UNIQUE (tenant, name)")
        )
        return
    await _sqlite_rebuild_tasks(conn, sorted(columns, key=list(tasks.c.keys()).index))


async def _sqlite_rebuild_tasks(conn: AsyncConnection, old_columns: list[str]) -> None:
    """SQLite cannot drop the old ``UNIQUE (name)``: build ``tasks`` anew. ``messages`` is rebuilt
    too, so no foreign key ever points at a dropped table (SQLite's own rename rewrites the new
    ``messages``' reference to ``tasks``)."""
    dialect = conn.dialect
    new_tasks = str(CreateTable(tasks).compile(dialect=dialect)).replace(
        "CREATE TABLE tasks", "CREATE TABLE tasks_new", 1
    )
    new_messages = (
        str(CreateTable(messages).compile(dialect=dialect))
        .replace("CREATE TABLE messages", "CREATE TABLE messages_new", 1)
        .replace("REFERENCES tasks (id)", "REFERENCES tasks_new (id)")
    )
    task_columns = ", ".join(old_columns)
    # The columns ``messages`` has at this step (later steps add theirs to the table's definition).
    existing = await conn.run_sync(lambda c: {col["name"] for col in sa.inspect(c).get_columns("messages")})
    message_columns = ", ".join(c.name for c in messages.c if c.name in existing)
    for statement in (
        new_tasks,
        f"INSERT INTO tasks_new ({task_columns}) SELECT {task_columns} FROM tasks",
        new_messages,
        f"INSERT INTO messages_new ({message_columns}) SELECT {message_columns} FROM messages",
        "DROP TABLE messages",
        "DROP TABLE tasks",
        "ALTER TABLE tasks_new RENAME TO tasks",
        "ALTER TABLE messages_new RENAME TO messages",
        "CREATE INDEX ix_messages_task_order ON messages (task_id, created_at DESC, seq ASC)",
        "CREATE INDEX ix_messages_open_by_writer ON messages (writer_id) "
        "WHERE streaming_status = 'IN_PROGRESS'",
    ):
        await conn.execute(sa.text(statement))


async def _v5_decisions(conn: AsyncConnection) -> None:
    await conn.run_sync(decisions_metadata.create_all)


async def _v6_notes_and_parents(conn: AsyncConnection) -> None:
    columns = await conn.run_sync(lambda c: {col["name"] for col in sa.inspect(c).get_columns("messages")})
    for name, kind in (("note", "TEXT"), ("parent_id", "VARCHAR(64)")):
        if name not in columns:  # else created by step 1 after the column joined ``messages``
            await conn.execute(sa.text(f"ALTER TABLE messages ADD COLUMN {name} {kind}"))
    await move_notes_and_link_parents(conn)


async def _v7_open_turns(conn: AsyncConnection) -> None:
    await conn.run_sync(open_turns_metadata.create_all)


async def _v8_push_configs(conn: AsyncConnection) -> None:
    await conn.run_sync(push_configs_metadata.create_all)


async def _v9_chat_digests(conn: AsyncConnection) -> None:
    await conn.run_sync(chat_digests_metadata.create_all)


async def _v10_spans(conn: AsyncConnection) -> None:
    await conn.run_sync(spans_metadata.create_all)


MIGRATIONS: Final[list[tuple[int, str, Callable[[AsyncConnection], Awaitable[None]]]]] = [
    (1, "tasks, messages, idempotency keys", _v1_initial),
    (2, "messages index in listing order", _v2_order_index),
    (3, "writer leases; messages remember their writer", _v3_writers),
    (4, "tasks belong to a tenant; names are unique per tenant", _v4_tenants),
    (5, "one-shot approval decisions", _v5_decisions),
    (6, "messages keep their notes beside the content and know their parent", _v6_notes_and_parents),
    (7, "open turns by writer", _v7_open_turns),
    (8, "A2A push notification configs", _v8_push_configs),
    (9, "conversation digests of stateless Chat Completions clients", _v9_chat_digests),
    (10, "Agentex spans, per tenant", _v10_spans),
]


async def migrate(conn: AsyncConnection, now: int) -> list[int]:
    """Apply every migration step not yet recorded, in order, in the caller's transaction."""
    if conn.dialect.name == "postgresql":
        # Several workers may start at once; one migrates, the others wait and find nothing to do.
        await conn.execute(sa.text("SELECT pg_advisory_xact_lock(7310225)"))
    await conn.run_sync(schema_migrations.metadata.create_all)
    done = set((await conn.execute(sa.select(schema_migrations.c.version))).scalars())
    applied = []
    for version, description, step in MIGRATIONS:
        if version in done:
            continue
        await step(conn)
        await conn.execute(
            schema_migrations.insert().values(version=version, description=description, applied_at=now)
        )
        applied.append(version)
    return applied
