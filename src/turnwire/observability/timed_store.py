"""Store operations timed by name (``turnwire_store_operation_duration_seconds{operation}``) and,
inside a traced turn, the slow ones as the turn's child spans (``store {operation}``).

The app's store wrapped once, when the app opens it with metrics or tracing on: every coroutine
method is timed when metrics are on; the operations of ``TRACED`` (a turn's flushes and closing
write, the conversation found or made, the history read) get a span when the caller runs inside a
traced turn (the turn's tracer is current: ``model_spans.CURRENT_TRACER``, set by the turn's span
while it starts and while its events are pulled, so the recorder's write tasks inherit it) and the
operation took ``slow_seconds`` or more: the span is made once the operation is over, with its
real start and end, so a quick one costs two clock reads and nothing else. Everything else (attributes
such as ``db``, ``dialect``, ``writer_id``) is the store's own.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any, Final

from turnwire.observability.metrics import TurnMetrics
from turnwire.observability.model_spans import CURRENT_TRACER
from turnwire.observability.work_spans import record_span

TRACED: Final = frozenset(
    {"write_flush", "create_messages", "session_task", "get_task_by_name", "read_branch", "list_messages"}
)
"""The operations a turn waits on or that write its reply: a span each inside a traced turn
when they take time (the rest are quick, or queued and written by those)."""

slow_seconds = 0.001
"""An operation this long or longer (or failed) is a span; a quicker one is only timed: on SQLite
most take a fraction of a millisecond, and a span each would cost more than the write."""


class TimedStore:
    """``inner`` with its coroutine methods timed into ``metrics.store_duration`` (``metrics``
    given) and traced (``traced``: tracing is on)."""

    def __init__(self, inner: Any, metrics: TurnMetrics | None, *, traced: bool = False) -> None:
        self.__dict__["_inner"] = inner
        self.__dict__["_metrics"] = metrics
        self.__dict__["_traced"] = traced

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not inspect.iscoroutinefunction(value):
            return value
        metrics = self._metrics
        histogram = None if metrics is None else metrics.store_duration.labels(name)
        traced = self._traced and name in TRACED
        if histogram is None and not traced:
            self.__dict__[name] = value
            return value
        system = getattr(self._inner, "dialect", "") or "other_sql"
        wrapped = _observed(value, name, histogram, system if traced else None)
        self.__dict__[name] = wrapped  # built once per operation
        return wrapped

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)


def _observed(
    method: Callable[..., Any], name: str, histogram: Any, system: str | None
) -> Callable[..., Any]:
    """``method`` timed into ``histogram`` (if any) and, with ``system`` (the database), a span
    when a traced turn is current and the operation took ``slow_seconds`` or more."""
    span_name, attributes = f"store {name}", {"db.system.name": system, "db.operation.name": name}

    async def observed(*args: Any, **kwargs: Any) -> Any:
        tracer = None if system is None else CURRENT_TRACER.get()
        wall = time.time_ns() if tracer is not None else 0
        started = time.perf_counter()
        error: BaseException | None = None
        try:
            return await method(*args, **kwargs)
        except BaseException as exc:
            error = exc
            raise
        finally:
            took = time.perf_counter() - started
            if histogram is not None:
                histogram.observe(took)
            if tracer is not None and (took >= slow_seconds or error is not None):
                record_span(tracer, span_name, attributes, wall, wall + int(took * 1e9), error=error)

    return observed
