"""Store operations timed by name (``turnwire_store_operation_duration_seconds{operation}``).

The app's store wrapped once, when the app opens it with metrics on: every coroutine method is
timed; everything else (attributes such as ``db``, ``dialect``, ``writer_id``) is the store's own.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import Callable
from typing import Any

from turnwire.observability.metrics import TurnMetrics


class TimedStore:
    """``inner`` with its coroutine methods timed into ``metrics.store_duration``."""

    def __init__(self, inner: Any, metrics: TurnMetrics) -> None:
        self.__dict__["_inner"] = inner
        self.__dict__["_metrics"] = metrics

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._inner, name)
        if not inspect.iscoroutinefunction(value):
            return value
        timed = _timed(value, self._metrics.store_duration.labels(name))
        self.__dict__[name] = timed  # built once per operation
        return timed

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._inner, name, value)


def _timed(method: Callable[..., Any], histogram: Any) -> Callable[..., Any]:
    async def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await method(*args, **kwargs)
        finally:
            histogram.observe(time.perf_counter() - started)

    return timed
