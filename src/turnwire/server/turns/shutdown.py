"""Prompt shutdown: when the process is asked to stop (SIGTERM, SIGINT), open streams end at once
instead of holding the server up until their readers leave.

uvicorn stops accepting connections on a signal, then waits for every open response to finish
before the app's lifespan ends, so an idle ``/tasks/{id}/stream`` reader (or a long agent turn)
would keep the process alive. ``SHUTDOWN`` is the process's stop signal: the app's lifespan wraps
the signal handlers so that a signal triggers it (then hands the signal on to uvicorn), and every
stream watches it — a turn's run is cancelled, so its stream ends with the format's closing frames
and the recorder's closing write stores the turn; a task stream sends a last event and ends.

An app embedded some other way can call ``SHUTDOWN.begin()`` itself before stopping its server.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


class ShutdownSignal:
    """A process-wide "stopping" flag with callbacks, safe to trigger from a signal handler or any
    thread; each callback runs on the event loop that registered it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._started = False
        self._watchers: dict[int, tuple[asyncio.AbstractEventLoop, Callable[[], Any]]] = {}

    @property
    def started(self) -> bool:
        return self._started

    def begin(self) -> None:
        """Start the shutdown: every watcher's callback is scheduled on its loop (once)."""
        with self._lock:
            self._started = True
            watchers = list(self._watchers.values())
            self._watchers.clear()
        for loop, callback in watchers:
            with contextlib.suppress(RuntimeError):  # that loop is already closed
                loop.call_soon_threadsafe(callback)

    def reset(self) -> None:
        """Forget a shutdown (a new server in the same process, e.g. in tests)."""
        with self._lock:
            self._started = False

    def watch(self, callback: Callable[[], Any]) -> contextlib.AbstractContextManager[None]:
        """Run ``callback`` on the current event loop when the shutdown begins, while the block
        runs (at once if it has begun already)."""
        return _Watch(self, callback)


class _Watch:
    """``ShutdownSignal.watch``'s block: a plain class, not a generator context manager (every
    streamed turn enters one)."""

    __slots__ = ("callback", "signal")

    def __init__(self, signal: ShutdownSignal, callback: Callable[[], Any]) -> None:
        self.signal = signal
        self.callback = callback

    def __enter__(self) -> None:
        loop = asyncio.get_running_loop()
        signal = self.signal
        with signal._lock:
            started = signal._started
            if not started:
                signal._watchers[id(self)] = (loop, self.callback)
        if started:
            loop.call_soon(self.callback)

    def __exit__(self, *exc: object) -> None:
        signal = self.signal
        with signal._lock:
            signal._watchers.pop(id(self), None)


SHUTDOWN = ShutdownSignal()


@contextlib.contextmanager
def begin_on_stop_signals() -> Iterator[None]:
    """While the block runs, SIGTERM and SIGINT first begin ``SHUTDOWN``, then go to the handler
    that was installed before (uvicorn's). Outside the main thread (a server run in a thread)
    signals cannot be handled, and nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    SHUTDOWN.reset()
    previous: dict[int, Any] = {}

    def handle(signum: int, frame: FrameType | None) -> None:
        SHUTDOWN.begin()
        before = previous.get(signum)
        if callable(before):
            before(signum, frame)
        elif before == signal.SIG_DFL:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    for sig in STOP_SIGNALS:
        previous[sig] = signal.getsignal(sig)
        signal.signal(sig, handle)
    try:
        yield
    finally:
        for signum, before in previous.items():
            if signal.getsignal(signum) is handle:
                signal.signal(signum, before)
