"""Child spans of a traced turn around work that takes time: waiting on Redis for another
worker's turn to be stored (``runtime.live``), the Redis write of a turn log's end
(``conversations.redis_turnlogs``), store operations (``timed_store``).

Free when tracing is off or outside a traced turn: ``work_span`` reads one context variable (the
turn's tracer, set while the turn's span is current: ``model_spans.CURRENT_TRACER``) and answers
a no-op context manager; nothing of OpenTelemetry is imported.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from turnwire.observability.model_spans import CURRENT_TRACER


@contextlib.contextmanager
def work_span(name: str, attributes: dict[str, Any]) -> Iterator[None]:
    """A ``CLIENT`` span ``name`` around the block when a traced turn is current, else nothing."""
    tracer = CURRENT_TRACER.get()
    if tracer is None:
        yield
        return
    from opentelemetry.trace import SpanKind

    with tracer.start_as_current_span(name, kind=SpanKind.CLIENT, attributes=attributes):
        yield


def record_span(
    tracer: Any,
    name: str,
    attributes: dict[str, Any],
    start_ns: int,
    end_ns: int,
    *,
    parent: Any = None,
    error: BaseException | None = None,
) -> None:
    """The ``CLIENT`` span of work that is over (from ``start_ns`` to ``end_ns``, ns since the
    epoch), a child of ``parent`` (a context; ``None``: the current one)."""
    from opentelemetry.trace import SpanKind, Status, StatusCode

    span = tracer.start_span(
        name, context=parent, kind=SpanKind.CLIENT, attributes=attributes, start_time=start_ns
    )
    if error is not None:
        span.set_attribute("error.type", type(error).__qualname__)
        span.set_status(Status(StatusCode.ERROR))
    span.end(end_time=end_ns)
