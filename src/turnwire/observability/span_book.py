"""The spans Agentex's ``/spans`` routes answer from: the turns' recorded spans and those clients
create, in Agentex's shape, per tenant, in this process's memory (the newest ``LIMIT``).

A traced turn writes its ``invoke_agent`` span and its ``execute_tool`` children here as they end
(``TurnSpan``); ``POST /spans`` and ``PATCH /spans/{id}`` add and change client spans. It is a
window on recent work, not a store: a restart forgets it and each worker has its own; the OTLP
export is where traces last.
"""

from __future__ import annotations

from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any, Final

LIMIT: Final = 10_000


class SpanBook:
    def __init__(self, limit: int = LIMIT) -> None:
        self.limit = limit
        self._spans: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()

    def put(self, tenant: str, span: dict[str, Any]) -> dict[str, Any]:
        key = (tenant, span["id"])
        self._spans[key] = span
        self._spans.move_to_end(key)
        while len(self._spans) > self.limit:
            self._spans.popitem(last=False)
        return span

    def get(self, tenant: str, span_id: str) -> dict[str, Any] | None:
        return self._spans.get((tenant, span_id))

    def find(
        self,
        tenant: str,
        *,
        task_id: str | None = None,
        trace_id: str | None = None,
        descending: bool = False,
        order_by: str = "start_time",
    ) -> list[dict[str, Any]]:
        found = [
            span
            for (owner, _), span in self._spans.items()
            if owner == tenant
            and (task_id is None or span.get("task_id") == task_id)
            and (trace_id is None or span.get("trace_id") == trace_id)
        ]
        found.sort(key=lambda s: (s.get(order_by) is None, str(s.get(order_by) or "")), reverse=descending)
        return found


SPANS = SpanBook()
"""This process's book (every app in it; tenants apart)."""


def iso_time(nanoseconds: int | None) -> str | None:
    """An OpenTelemetry time (ns since the epoch) as Agentex writes times (ISO 8601, UTC)."""
    if nanoseconds is None:
        return None
    return datetime.fromtimestamp(nanoseconds / 1e9, UTC).isoformat()


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
