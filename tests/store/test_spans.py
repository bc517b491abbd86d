"""The ``spans`` table (step 10) on SQLite and PostgreSQL: batches written and replaced, pages in
Agentex's orders, tenants apart, a conversation's latest turn span, ids unique per tenant."""

from __future__ import annotations

from typing import Any

import pytest

from turnwire.store import SqlStore
from turnwire.store.spans import create_span, find_spans, get_span, last_turn_span, put_spans

pytestmark = pytest.mark.anyio


def _span(span_id: str, start: str, end: str | None = None, **fields: Any) -> dict[str, Any]:
    return {
        "id": span_id,
        "name": fields.pop("name", span_id),
        "trace_id": fields.pop("trace_id", "t1"),
        "task_id": fields.pop("task_id", "task-1"),
        "parent_id": fields.pop("parent_id", None),
        "start_time": start,
        "end_time": end,
        "input": fields.pop("input", None),
        "output": fields.pop("output", None),
        "data": fields.pop("data", None),
    }


async def test_spans_are_written_in_batches_and_read_in_agentex_orders(store: SqlStore) -> None:
    db = store.db
    await put_spans(
        db,
        [
            ("acme", _span("b", "2026-12-01T10:00:02+00:00", "2026-12-01T10:00:03+00:00"), "chat"),
            # Another offset, the same instant order: stored as UTC microseconds.
            ("acme", _span("a", "2026-12-01T11:00:01+01:00", None, data={"k": [1, "x"]}), None),
            ("acme", _span("c", "2026-12-01T10:00:03Z", "2026-12-01T10:00:04Z", trace_id="t2"), "chat"),
            ("beta", _span("a", "2026-12-01T09:00:00+00:00", task_id="task-9"), None),
        ],
    )
    ids = [s["id"] for s in await find_spans(db, "acme", task_id="task-1")]
    assert ids == ["a", "b", "c"]
    assert [s["id"] for s in await find_spans(db, "acme", task_id="task-1", descending=True)] == [
        "c",
        "b",
        "a",
    ]
    # Without an end time: last ascending, first descending (as PostgreSQL sorts nulls).
    assert [s["id"] for s in await find_spans(db, "acme", order_by="end_time")] == ["b", "c", "a"]
    assert [s["id"] for s in await find_spans(db, "acme", order_by="end_time", descending=True)] == [
        "a",
        "c",
        "b",
    ]
    assert [s["id"] for s in await find_spans(db, "acme", trace_id="t2")] == ["c"]
    assert [s["id"] for s in await find_spans(db, "acme", limit=1, offset=1)] == ["b"]
    a = await get_span(db, "acme", "a")
    assert a is not None
    assert a["start_time"] == "2026-12-01T10:00:01.000000+00:00" and a["end_time"] is None
    assert a["data"] == {"k": [1, "x"]} and a["input"] is None
    # Tenants apart: the same id is two spans.
    beta = await get_span(db, "beta", "a")
    assert beta is not None and beta["task_id"] == "task-9"
    assert await find_spans(db, "beta", task_id="task-1") == []
    assert await get_span(db, "gamma", "a") is None


async def test_a_replaced_span_keeps_its_conversation_and_ids_are_unique_per_tenant(store: SqlStore) -> None:
    db = store.db
    turn = _span("t", "2026-12-01T10:00:00Z", "2026-12-01T10:00:05Z", output={"stop_reason": "paused"})
    await put_spans(db, [("acme", turn, "chat-1")])
    latest = await last_turn_span(db, "acme", "chat-1")
    assert latest is not None and latest["output"] == {"stop_reason": "paused"}
    # A client's update (no session): the span changes, its conversation stays.
    await put_spans(db, [("acme", {**turn, "output": {"stop_reason": "paused", "seen": True}}, None)])
    latest = await last_turn_span(db, "acme", "chat-1")
    assert latest is not None and latest["output"] == {"stop_reason": "paused", "seen": True}
    later = _span("u", "2026-12-01T10:01:00Z", "2026-12-01T10:01:05Z", output={"stop_reason": "end_turn"})
    await put_spans(db, [("acme", later, "chat-1")])
    latest = await last_turn_span(db, "acme", "chat-1")
    assert latest is not None and latest["id"] == "u"
    assert await last_turn_span(db, "beta", "chat-1") is None

    assert await create_span(db, "acme", _span("new", "2026-12-01T10:00:00Z"))
    assert not await create_span(db, "acme", _span("new", "2026-12-01T12:00:00Z"))
    assert await create_span(db, "beta", _span("new", "2026-12-01T12:00:00Z"))
    kept = await get_span(db, "acme", "new")
    assert kept is not None and kept["start_time"].startswith("2026-12-01T10:00:00")
