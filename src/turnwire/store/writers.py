"""Writer leases: which server process streams which message, and which processes are dead.

Every server process registers a ``writers`` row (a fresh id, its host identity and pid) and
renews its lease every ``lease / 3`` seconds. The messages it streams carry its id. A writer is
dead when its row is gone, its lease ran out, or it ran on this same host (same kernel boot and
pid namespace) and its pid no longer runs — so a restarted process repairs its previous life at
once, while a peer on another machine is repaired when its lease runs out. A live peer's streams
are never touched. Every live process repairs dead writers' messages at start and then on each
renewal, so a crash is repaired even if the crashed process never comes back.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from pathlib import Path
from typing import Final

import sqlalchemy as sa

from turnwire.store.clock import new_id, now_us
from turnwire.store.open_turns import open_turn_writers, repair_open_turns, repair_orphans
from turnwire.store.recovery import recover_interrupted
from turnwire.store.schema import messages, writers
from turnwire.store.sql import SqlStore

log = logging.getLogger("turnwire.store")

DEFAULT_LEASE_SECONDS: Final = 15.0
W = writers.c
M = messages.c


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def host_identity() -> str:
    """Where a pid means this process's pid: hostname, kernel boot id and pid namespace. Two
    containers on one kernel differ in their pid namespace, so neither judges the other's pids."""
    try:
        pidns = os.readlink("/proc/self/ns/pid")
    except OSError:
        pidns = ""
    return f"{socket.gethostname()}/{_read('/proc/sys/kernel/random/boot_id')}/{pidns}"


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs here (a zombie — killed, not yet reaped — counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    stat = _read(f"/proc/{pid}/stat")
    return not (stat and stat.rpartition(")")[2].split()[:1] == ["Z"])


async def dead_writers(store: SqlStore, *, me: str | None = None) -> list[str]:
    """Writer ids that own ``IN_PROGRESS`` messages or open turns and are dead (see the module doc); ``me``
    is never among them."""
    now, here = now_us(), host_identity()
    owners = (
        sa.select(M.writer_id)
        .where(M.streaming_status == "IN_PROGRESS", M.writer_id.is_not(None))
        .union(open_turn_writers())
        .subquery()
    )
    query = sa.select(owners.c.writer_id, W.host, W.pid, W.lease_until).select_from(
        owners.outerjoin(writers, W.id == owners.c.writer_id)
    )
    async with store.db.read() as conn:
        rows = list(await conn.execute(query))
    dead = []
    for writer_id, host, pid, lease_until in rows:
        if writer_id == me:
            continue
        if lease_until is None or lease_until < now or (host == here and not pid_alive(pid)):
            dead.append(writer_id)
    return dead


async def repair_dead_writers(store: SqlStore, *, me: str | None = None) -> dict[str, list[str]]:
    """Mark the messages and turns of dead writers interrupted and forget those writers; returns
    task id -> message ids (as ``recover_interrupted``; [] for a turn cut between messages)."""
    dead = await dead_writers(store, me=me)
    if not dead:
        return {}
    repaired = await recover_interrupted(store, writers=dead)
    repaired.update(await repair_open_turns(store, dead, marked=repaired))
    async with store.db.write() as conn:
        await conn.execute(sa.delete(writers).where(W.id.in_(dead)))
    return repaired


class WriterLease:
    """This process's writer row: registered by ``start`` (which also repairs dead writers), renewed
    in the background, removed by ``stop``. While it runs, ``store.writer_id`` is its id."""

    def __init__(
        self, store: SqlStore, *, writer_id: str | None = None, lease_seconds: float = DEFAULT_LEASE_SECONDS
    ) -> None:
        self.store = store
        self.writer_id = writer_id or new_id()
        self.lease_seconds = lease_seconds
        self._task: asyncio.Task[None] | None = None

    def _lease_until(self) -> int:
        return now_us() + int(self.lease_seconds * 1_000_000)

    def _row(self) -> sa.Insert:
        now = now_us()
        return writers.insert().values(
            id=self.writer_id,
            host=host_identity(),
            pid=os.getpid(),
            started_at=now,
            lease_until=self._lease_until(),
        )

    async def start(self) -> dict[str, list[str]]:
        """Register, repair what dead writers left streaming (returned as task id -> message ids),
        and start renewing."""
        async with self.store.db.write() as conn:
            await conn.execute(sa.delete(writers).where(W.id == self.writer_id))
            await conn.execute(self._row())
        self.store.writer_id = self.writer_id
        repaired = await repair_dead_writers(self.store, me=self.writer_id)
        self._task = asyncio.get_running_loop().create_task(self._renew_forever())
        return repaired

    async def renew(self) -> None:
        """Extend the lease (re-registering if a peer had given this process up for dead)."""
        async with self.store.db.write() as conn:
            done = await conn.execute(
                sa.update(writers).where(W.id == self.writer_id).values(lease_until=self._lease_until())
            )
            if done.rowcount == 0:
                await conn.execute(self._row())

    async def _renew_forever(self) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                await self.renew()
                repaired = await repair_dead_writers(self.store, me=self.writer_id)
                if repaired:
                    count = sum(len(ids) for ids in repaired.values())
                    log.warning("marked %d message(s) of a stopped server as interrupted", count)
                orphaned = await repair_orphans(self.store, self.writer_id)
                if orphaned:
                    count = len(orphaned)
                    log.warning("marked %d turn(s) whose end could not be stored as interrupted", count)
            except Exception:
                log.exception("renewing writer lease %s failed", self.writer_id)

    async def stop(self) -> None:
        """Stop renewing and remove the row (messages still open then are repaired by a peer or the
        next start, as after a crash)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.store.writer_id = None
        with contextlib.suppress(Exception):
            async with self.store.db.write() as conn:
                await conn.execute(sa.delete(writers).where(W.id == self.writer_id))
