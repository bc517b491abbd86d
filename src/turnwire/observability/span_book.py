"""The spans Agentex's ``/spans`` routes answer from: the turns' recorded spans and those clients
create, in Agentex's shape, per tenant.

Two books, one interface: ``StoredSpans`` keeps them in the app's SQL store (``store.spans``), so
every worker reads every worker's spans and a restart forgets none; ``MemorySpans`` (the newest
``LIMIT`` in this process) serves an app whose store is not SQL. A traced turn hands its
``invoke_agent`` span and its ``execute_tool`` children to ``put`` as they end, which never waits:
the stored book writes them in the background, a batch per transaction (whatever ended within
``BATCH_SECONDS``, or while the previous batch was being written), after the turn's last byte,
never before its first. A reader of this process (or a paused turn's end) writes the batch at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import OrderedDict
from typing import Any, Final

from turnwire.store import spans as stored
from turnwire.store.clock import to_iso
from turnwire.store.tenant_view import sql_db

log = logging.getLogger("turnwire.observability")

LIMIT: Final = 10_000
BATCH_SECONDS: Final = 0.05
"""How long the spans that ended wait for others to share their transaction: a busy server writes
the spans of many turns at once instead of one transaction per turn."""
DRAIN_SECONDS: Final = 2.0
"""Longest a reader (or a paused turn's end) waits for this process's queued spans to be written."""


class MemorySpans:
    """This process's newest ``limit`` spans (tenants apart)."""

    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._spans: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()

    def put(self, tenant: str, span: dict[str, Any], session_id: str | None = None) -> None:
        key = (tenant, span["id"])
        self._spans[key] = span
        self._spans.move_to_end(key)
        while len(self._spans) > self.limit:
            self._spans.popitem(last=False)

    async def drain(self) -> None:
        pass

    async def close(self) -> None:
        pass

    async def create(self, tenant: str, span: dict[str, Any]) -> bool:
        if (tenant, span["id"]) in self._spans:
            return False
        self.put(tenant, span)
        return True

    async def update(self, tenant: str, span: dict[str, Any]) -> None:
        self.put(tenant, span)

    async def get(self, tenant: str, span_id: str) -> dict[str, Any] | None:
        return self._spans.get((tenant, span_id))

    async def find(
        self,
        tenant: str,
        *,
        task_id: str | None = None,
        trace_id: str | None = None,
        order_by: str = "start_time",
        descending: bool = False,
        limit: int = 50,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        found = [
            span
            for (owner, _), span in self._spans.items()
            if owner == tenant
            and (task_id is None or span.get("task_id") == task_id)
            and (trace_id is None or span.get("trace_id") == trace_id)
        ]
        found.sort(key=lambda s: (s.get(order_by) is None, _sortable(s.get(order_by))), reverse=descending)
        return found[offset : offset + limit]

    async def last_turn_span(self, tenant: str, session_id: str) -> dict[str, Any] | None:
        return None  # a resume on this process links to the paused span it remembers itself


class StoredSpans:
    """The spans of the SQL database ``db``; ``put`` queues, a background task writes."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self._queued: list[stored.StoredSpan] = []
        self._writing: asyncio.Task[None] | None = None
        self._hurry = asyncio.Event()

    def put(self, tenant: str, span: dict[str, Any], session_id: str | None = None) -> None:
        self._queued.append((tenant, span, session_id))
        if self._writing is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return  # no loop (a turn ended at interpreter exit): written by the next drain, if any
            self._writing = loop.create_task(self._write())

    async def _write(self) -> None:
        try:
            if not self._hurry.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._hurry.wait(), BATCH_SECONDS)
            while self._queued:
                batch, self._queued = self._queued, []
                try:
                    await stored.put_spans(self.db, batch)
                except Exception as exc:
                    # Observing must never break the turns: these spans are only in the OTLP export.
                    log.warning("could not store %d span(s) for /spans: %s", len(batch), exc)
        finally:
            self._writing = None
            self._hurry.clear()

    async def drain(self) -> None:
        """Until what this process queued so far is written (bounded by ``DRAIN_SECONDS``)."""
        if self._writing is None:
            if not self._queued:
                return
            self._writing = asyncio.get_running_loop().create_task(self._write())
        self._hurry.set()  # no waiting for company
        writing = self._writing
        if writing is not None:
            try:
                await asyncio.wait_for(asyncio.shield(writing), DRAIN_SECONDS)
            except TimeoutError:
                log.warning("spans are slow to store; /spans may miss the latest for a moment")

    async def close(self) -> None:
        await self.drain()

    async def create(self, tenant: str, span: dict[str, Any]) -> bool:
        return await stored.create_span(self.db, tenant, span)

    async def get(self, tenant: str, span_id: str) -> dict[str, Any] | None:
        await self.drain()
        return await stored.get_span(self.db, tenant, span_id)

    async def find(self, tenant: str, **query: Any) -> list[dict[str, Any]]:
        await self.drain()
        return await stored.find_spans(self.db, tenant, **query)

    async def last_turn_span(self, tenant: str, session_id: str) -> dict[str, Any] | None:
        return await stored.last_turn_span(self.db, tenant, session_id)

    async def update(self, tenant: str, span: dict[str, Any]) -> None:
        await stored.put_spans(self.db, [(tenant, span, None)])


SpanBook = MemorySpans | StoredSpans

MEMORY = MemorySpans()
"""This process's book for apps whose store is not SQL (every such app; tenants apart)."""


def book_for(store: Any) -> SpanBook:
    """The book of an app whose store is ``store``: its SQL database's, else this process's."""
    db = sql_db(store)
    return MEMORY if db is None else StoredSpans(db)


def _sortable(value: Any) -> str:
    return "" if value is None else str(value)


def iso_time(nanoseconds: int | None) -> str | None:
    """An OpenTelemetry time (ns since the epoch) as the store writes times (ISO 8601, UTC, µs)."""
    return None if nanoseconds is None else to_iso(nanoseconds // 1000)


def recorded_span(
    sdk_span: Any, *, task_id: str | None, output: dict[str, Any] | None = None
) -> dict[str, Any]:
    """An ended SDK span as an Agentex span: its attributes are the ``data``."""
    ctx = sdk_span.get_span_context()
    parent = sdk_span.parent
    return {
        "id": f"{ctx.span_id:016x}",
        "name": sdk_span.name,
        "start_time": iso_time(sdk_span.start_time),
        "end_time": iso_time(sdk_span.end_time),
        "trace_id": f"{ctx.trace_id:032x}",
        "parent_id": f"{parent.span_id:016x}" if parent is not None else None,
        "task_id": task_id,
        "input": None,
        "output": output,
        "data": dict(sdk_span.attributes or {}),
    }
