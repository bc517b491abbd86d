"""Writer leases on SQLite and PostgreSQL: whose open messages crash repair may close."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from store_databases import execute
from turnwire.store import SqlStore
from turnwire.store.clock import now_us
from turnwire.store.writers import WriterLease, dead_writers, host_identity, pid_alive, repair_dead_writers

pytestmark = pytest.mark.anyio

TEXT = {
    "type": "text",
    "author": "agent",
    "style": "static",
    "format": "plain",
    "content": "",
    "attachments": None,
}


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


async def _writer(db_url: str, writer_id: str, host: str, pid: int, lease_in_s: float) -> None:
    until = now_us() + int(lease_in_s * 1_000_000)
    await execute(
        db_url,
        "INSERT INTO writers (id, host, pid, started_at, lease_until) "
        f"VALUES ('{writer_id}', '{host}', {pid}, 0, {until})",
    )


async def _open_message(store: SqlStore, task_id: str, writer_id: str | None) -> str:
    store.writer_id = writer_id
    try:
        return (await store.create_messages(task_id, [TEXT], streaming_status="IN_PROGRESS", owned=True))[0][
            "id"
        ]
    finally:
        store.writer_id = None


async def test_only_dead_writers_lose_their_open_messages(store: SqlStore, db_url: str) -> None:
    task = (await store.create_task(name="w"))["id"]
    here = host_identity()
    await _writer(db_url, "live-here", here, os.getpid(), 60)
    await _writer(db_url, "dead-here", here, _dead_pid(), 60)
    await _writer(db_url, "live-elsewhere", "another-host//", 1, 60)
    await _writer(db_url, "expired-elsewhere", "another-host//", 1, -1)
    ids = {w: await _open_message(store, task, w) for w in ("live-here", "dead-here", "live-elsewhere")}
    ids["expired-elsewhere"] = await _open_message(store, task, "expired-elsewhere")
    ids["unregistered"] = await _open_message(store, task, "unregistered")
    client_stream = (await store.create_messages(task, [TEXT], streaming_status="IN_PROGRESS"))[0]["id"]

    assert sorted(await dead_writers(store)) == ["dead-here", "expired-elsewhere", "unregistered"]
    assert sorted(await dead_writers(store, me="dead-here")) == ["expired-elsewhere", "unregistered"]
    repaired = await repair_dead_writers(store)
    assert sorted(repaired[task]) == sorted([ids["dead-here"], ids["expired-elsewhere"], ids["unregistered"]])

    status = {m["id"]: m["streaming_status"] for m in await store.list_messages(task, limit=100)}
    assert status[ids["live-here"]] == status[ids["live-elsewhere"]] == "IN_PROGRESS"
    assert status[client_stream] == "IN_PROGRESS"  # a client's own stream is the client's business
    rows = (await execute(db_url, "SELECT id FROM writers ORDER BY id"))[0]
    assert rows == [("live-elsewhere",), ("live-here",)]
    assert await repair_dead_writers(store) == {}  # nothing twice


async def test_a_lease_registers_stamps_renews_and_leaves(store: SqlStore, db_url: str) -> None:
    lease = WriterLease(store, lease_seconds=30)
    assert await lease.start() == {}
    try:
        assert store.writer_id == lease.writer_id
        task = (await store.create_task(name="l"))["id"]
        await store.create_messages(task, [TEXT], streaming_status="IN_PROGRESS", owned=True)
        await store.create_messages(task, [TEXT], streaming_status="DONE")
        rows = (await execute(db_url, "SELECT writer_id FROM messages ORDER BY seq"))[0]
        assert rows == [(lease.writer_id,), (None,)]
        before = (await execute(db_url, "SELECT lease_until FROM writers"))[0][0][0]
        await execute(db_url, "DELETE FROM writers")  # a peer gave us up for dead
        await lease.renew()
        after = (await execute(db_url, "SELECT id, lease_until FROM writers"))[0]
        assert after[0][0] == lease.writer_id and after[0][1] >= before
    finally:
        await lease.stop()
    assert store.writer_id is None
    assert (await execute(db_url, "SELECT count(*) FROM writers"))[0] == [(0,)]


def test_pid_alive_tells_a_running_process_from_a_reaped_or_zombie_one() -> None:
    assert pid_alive(os.getpid())
    assert not pid_alive(_dead_pid())
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        for _ in range(200):
            with open(f"/proc/{zombie.pid}/stat") as f:
                if f.read().rpartition(")")[2].split()[0] == "Z":
                    break
            time.sleep(0.01)
        assert not pid_alive(zombie.pid)  # exited but not reaped: dead all the same
    finally:
        zombie.wait()
