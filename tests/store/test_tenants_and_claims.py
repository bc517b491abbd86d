"""Tenants and one-shot decision claims in the store, on SQLite and PostgreSQL: names unique per
tenant, another tenant's task reads as missing, an old database migrates with its data, and of
twenty concurrent claims of one token exactly one wins."""

from __future__ import annotations

import asyncio

import pytest

from store_databases import execute
from turnwire.store import Claim, NotFoundError, SqlStore
from turnwire.store.schema import MIGRATIONS
from turnwire.store.tenant_view import TenantStore

pytestmark = pytest.mark.anyio

TEXT = {"type": "text", "author": "user", "style": "static", "format": "plain", "content": "hi"}

# The schema as migrations 1-3 left it: ``name`` unique across all tasks.
V3_SCHEMA = [
    "CREATE TABLE tasks (id VARCHAR(64) PRIMARY KEY, name TEXT UNIQUE, status VARCHAR(16) NOT NULL, "
    "status_reason TEXT, params TEXT, task_metadata TEXT, created_at BIGINT NOT NULL, "
    "updated_at BIGINT NOT NULL, next_seq BIGINT NOT NULL DEFAULT 0, "
    "last_created_at BIGINT NOT NULL DEFAULT 0)",
    "CREATE TABLE messages (id VARCHAR(64) PRIMARY KEY, task_id VARCHAR(64) NOT NULL REFERENCES tasks (id), "
    "seq BIGINT NOT NULL, content TEXT NOT NULL, streaming_status VARCHAR(16), created_at BIGINT NOT NULL, "
    "updated_at BIGINT NOT NULL, writer_id VARCHAR(64), "
    "CONSTRAINT uq_messages_task_seq UNIQUE (task_id, seq))",
    "CREATE INDEX ix_messages_task_order ON messages (task_id, created_at DESC, seq ASC)",
    "CREATE TABLE idempotency_keys (scope VARCHAR(32) NOT NULL, key VARCHAR(255) NOT NULL, "
    "fingerprint VARCHAR(64) NOT NULL, response TEXT, created_at BIGINT NOT NULL, PRIMARY KEY (scope, key))",
    "CREATE TABLE writers (id VARCHAR(64) PRIMARY KEY, host TEXT NOT NULL, pid INTEGER NOT NULL, "
    "started_at BIGINT NOT NULL, lease_until BIGINT NOT NULL)",
    "CREATE INDEX ix_messages_open_by_writer ON messages (writer_id) WHERE streaming_status = 'IN_PROGRESS'",
    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, "
    "applied_at BIGINT NOT NULL)",
    "INSERT INTO schema_migrations VALUES (1, 'a', 0), (2, 'b', 0), (3, 'c', 0)",
    "INSERT INTO tasks (id, name, status, created_at, updated_at, next_seq) "
    "VALUES ('t1', 'chat', 'RUNNING', 1, 1, 1)",
    "INSERT INTO messages VALUES ('m1', 't1', 0, "
    '\'{"type":"text","author":"user","content":"old"}\', \'DONE\', 1, 1, NULL)',
]


async def test_a_v3_database_migrates_keeping_its_tasks_and_messages(db_url: str) -> None:
    await execute(db_url, *V3_SCHEMA)
    async with SqlStore(db_url) as store:
        task = await store.get_task_by_name("chat")  # the tasks created without keys: tenant ""
        assert task["id"] == "t1"
        [message] = await store.list_messages("t1")
        assert message["content"]["content"] == "old"
        # Names are unique per tenant now; the messages table still points at tasks.
        other = await store.create_task(name="chat", tenant="acme")
        assert other["id"] != "t1"
        await store.create_messages(other["id"], [TEXT])
        with pytest.raises(NotFoundError):
            await store.create_messages("no-such-task", [TEXT])
    versions = (await execute(db_url, "SELECT version FROM schema_migrations ORDER BY version"))[0]
    # Every step after the v3 database's, in order (4: tenants, 5: decisions, 6: notes and parents…).
    assert versions[3:] == [(version,) for version, _, _ in MIGRATIONS if version > 3]
    assert versions[3] == (4,)


async def test_names_are_per_tenant_and_sessions_never_cross(store: SqlStore) -> None:
    a = await store.session_task("chat", tenant="a")
    b = await store.session_task("chat", tenant="b")
    assert a.created and b.created and a.task["id"] != b.task["id"]
    assert (await store.session_task("chat", tenant="a")).task["id"] == a.task["id"]
    # A session id that is another tenant's task id is a new session of this tenant, not that task.
    c = await store.session_task(a.task["id"], tenant="b")
    assert c.created and c.task["id"] != a.task["id"]


async def test_another_tenants_task_reads_as_missing(store: SqlStore) -> None:
    mine, theirs = TenantStore(store, "a"), TenantStore(store, "b")
    task = await mine.create_task(name="secret", params={"api_key": "x"})
    [message] = await mine.create_messages(task["id"], [TEXT])
    assert (await TenantStore(store, "a").get_task(task["id"]))["id"] == task["id"]
    for attempt in (
        theirs.get_task(task["id"]),
        theirs.get_task_by_name("secret"),
        theirs.delete_task(task["id"]),
        theirs.transition_task(task["id"], "CANCELED"),
        theirs.create_messages(task["id"], [TEXT]),
        theirs.get_message(message["id"]),
        theirs.update_message(message["id"], task_id=None, content=TEXT),
        theirs.update_message(message["id"], task_id=task["id"], content=TEXT),
        theirs.update_messages(task["id"], {message["id"]: TEXT}),
        theirs.message_clock(task["id"]),
        theirs.claim_decisions(task["id"], [Claim("d" * 64, "call_1", True)]),
    ):
        with pytest.raises(NotFoundError):
            await attempt
    assert await theirs.list_messages(task["id"]) == []
    assert (await theirs.page_messages(task["id"])).data == []
    assert await theirs.list_tasks() == []
    assert [t["id"] for t in await mine.list_tasks()] == [task["id"]]
    # Nothing of theirs changed the task.
    assert (await store.get_task(task["id"]))["status"] == "RUNNING"
    assert [m["content"] for m in await store.list_messages(task["id"])] == [message["content"]]


async def test_twenty_concurrent_claims_of_one_token_have_one_winner(store: SqlStore) -> None:
    task = await store.create_task()
    claim = Claim("a" * 64, "call_1", True)
    results = await asyncio.gather(*(store.claim_decisions(task["id"], [claim]) for _ in range(20)))
    assert sum(r[claim.token_digest].first for r in results) == 1
    # A later contradicting claim learns the recorded answer and does not replace it.
    denied = await store.claim_decisions(task["id"], [Claim("a" * 64, "call_1", False)])
    assert denied[claim.token_digest] == (True, False)


async def test_two_stores_on_one_database_share_claims(db_url: str) -> None:
    async with SqlStore(db_url) as one, SqlStore(db_url) as two:
        task = await one.create_task()
        claim = Claim("b" * 64, "call_1", False)
        results = await asyncio.gather(
            *(s.claim_decisions(task["id"], [claim]) for s in (one, two) for _ in range(10))
        )
        assert sum(r[claim.token_digest].first for r in results) == 1


async def test_a_released_claim_is_taken_over_once_and_a_done_one_never(store: SqlStore) -> None:
    task = await store.create_task()
    approve, deny = Claim("c" * 64, "call_1", True), Claim("c" * 64, "call_1", False)
    assert (await store.claim_decisions(task["id"], [approve]))[approve.token_digest].first
    await store.settle_decisions(task["id"], [], [approve.token_digest])  # that turn did not run it
    flipped = await store.claim_decisions(task["id"], [deny])
    assert flipped[deny.token_digest] == (True, False)  # released is not reopened to another answer
    results = await asyncio.gather(*(store.claim_decisions(task["id"], [approve]) for _ in range(10)))
    assert sum(r[approve.token_digest].first for r in results) == 1
    await store.settle_decisions(task["id"], [approve.token_digest], [])  # this one ran it
    again = await store.claim_decisions(task["id"], [approve])
    assert again[approve.token_digest] == (True, False)
    # Releasing a settled claim changes nothing.
    await store.settle_decisions(task["id"], [], [approve.token_digest])
    assert not (await store.claim_decisions(task["id"], [approve]))[approve.token_digest].first


async def test_claims_of_two_tokens_in_either_order_never_deadlock(store: SqlStore) -> None:
    # A guard: the window for the deadlock is small, so without the ordering this passes most runs.
    task = await store.create_task()
    one, two = Claim("1" * 64, "call_1", True), Claim("2" * 64, "call_2", True)
    orders = [[one, two], [two, one]] * 10
    results = await asyncio.gather(*(store.claim_decisions(task["id"], order) for order in orders))
    for claim in (one, two):
        assert sum(r[claim.token_digest].first for r in results) == 1


async def test_get_task_of_a_tenant_reads_its_own_live_tasks_only(store: SqlStore) -> None:
    """``get_task(tenant=...)`` (what every tenant-scoped request asks first): the tenant's own task
    with every field; another tenant's, a deleted one and an unknown id are all missing."""
    mine = await store.create_task(name="mine", params={"a": [1, 2]}, tenant="acme")
    theirs = await store.create_task(name="theirs", tenant="other")
    gone = await store.create_task(name="gone", tenant="acme")
    await store.delete_task(gone["id"])

    assert await store.get_task(mine["id"], tenant="acme") == mine
    assert await store.get_task(mine["id"]) == mine  # no tenant: any tenant's
    for task_id, tenant in (
        (theirs["id"], "acme"),
        (gone["id"], "acme"),
        (gone["id"], None),
        ("nope", "acme"),
    ):
        with pytest.raises(NotFoundError):
            await store.get_task(task_id, tenant=tenant)
    view = TenantStore(store, "acme")
    assert await view.owns(mine["id"]) and not await view.owns(theirs["id"])
