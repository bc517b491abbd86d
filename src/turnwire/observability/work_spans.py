"""Child spans of a traced turn around work that takes time: waiting on Redis for another
worker's turn to be stored (``runtime.live``); store operations make theirs in ``timed_store``.

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
