"""Running one turn: the agent as a task, its events through the guard, cancellation.

The agent runs in its own asyncio task and feeds a bounded channel (back-pressure: a slow client
pauses the agent instead of buffering without limit). The consumer side validates each event,
repairs ordering (``ordering.TurnGuard``) and always ends the stream with exactly one ``Done``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Final, Protocol, runtime_checkable

from turnwire.errors import failure_message
from turnwire.model import Done, ErrorEvent, Event, StopReason
from turnwire.runtime.channel import END, Channel
from turnwire.runtime.context import Agent, TurnContext
from turnwire.runtime.ordering import TurnGuard
from turnwire.runtime.validation import CHECKS, validate_event

logger = logging.getLogger("turnwire.runtime")

CANCEL_GRACE: Final = 1.0
"""Seconds an agent gets to stop after it is cancelled before the runner stops waiting for it."""

CHANNEL_SIZE: Final = 64
FAILURE_CODE: Final = "agent_run_failed"
INVALID_EVENT_CODE: Final = "invalid_event"


async def stop_task(task: asyncio.Task[Any], grace: float = CANCEL_GRACE) -> bool:
    """Cancel ``task`` and wait up to ``grace`` seconds for it to finish; ``True`` if it did.

    Keeps waiting when the caller itself is being cancelled (level-triggered cancel scopes
    re-cancel at every await), then re-raises that cancellation once the wait is over.
    """
    task.cancel()
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace
    interrupted: asyncio.CancelledError | None = None
    while not task.done():
        remaining = deadline - loop.time()
        if remaining <= 0:
            break
        try:
            await asyncio.wait((task,), timeout=remaining)
        except asyncio.CancelledError as exc:
            interrupted = exc
    if interrupted is not None:
        raise interrupted
    return task.done()


async def _deliver_cancel(agen: Any, exc: asyncio.CancelledError) -> None:
    """Raise the cancellation inside an agent paused at ``yield``, so it sees it as it would at
    an ``await``; close it if it swallows it and yields again."""
    athrow = getattr(agen, "athrow", None)
    if athrow is None:
        return
    try:
        await athrow(exc)
    except BaseException:  # it ended (the usual case) or failed while ending: either way, done
        return
    try:
        await agen.aclose()
    except BaseException:
        logger.warning("agent kept running after cancellation and ignored close")


@runtime_checkable
class EventRun(Protocol):
    """A running turn as its consumers see it (``TurnRun``, and a recorded one).

    ``pull(timeout)`` is ``__anext__`` that may answer ``None`` after ``timeout`` seconds without
    an event (``0``: only what is buffered), so a consumer can mark silence and batch what is
    ready; ``stop_reason`` is set once the final event was delivered; ``aclose`` stops the turn.
    """

    @property
    def stop_reason(self) -> str | None: ...  # read-only here: a wrapper may pass its run's through

    def __aiter__(self) -> AsyncIterator[Event]: ...

    def __anext__(self) -> Any: ...

    def pull(self, timeout: float | None) -> Any: ...

    def aclose(self) -> Any: ...


class TurnRun(AsyncGenerator[Event, None]):
    """One turn of one agent, iterated like an async generator of canonical events.

    The stream always ends with exactly one ``Done`` whose ``stop_reason`` is set. After the
    stream is over, ``stop_reason`` holds it; ``cancelled`` says whether the turn ended by
    cancellation — ``cancel()``, ``aclose()`` before the end, or the consuming task being
    cancelled — and ``undelivered`` holds events the agent produced that were never yielded.
    """

    __slots__ = (
        "_chan",
        "_failure",
        "_gen",
        "_task",
        "_timeout",
        "agent",
        "cancel_requested",
        "cancelled",
        "ctx",
        "stop_reason",
        "undelivered",
    )

    def __init__(self, agent: Agent, ctx: TurnContext, *, channel_size: int = CHANNEL_SIZE) -> None:
        self.agent = agent
        self.ctx = ctx
        self.cancelled = False
        self.cancel_requested = False
        self.stop_reason: str | None = None
        self.undelivered: list[Event] = []
        self._task: asyncio.Task[None] | None = None
        self._chan = Channel(channel_size)
        self._failure: BaseException | None = None
        self._timeout: float | None = None
        self._gen = self._stream()

    # -- async generator protocol: delegate to the inner generator (no per-event wrapper)

    def __aiter__(self) -> TurnRun:
        return self

    def __anext__(self) -> Any:
        self._timeout = None
        return self._gen.__anext__()

    def pull(self, timeout: float | None) -> Any:
        """Awaitable: the next event, as ``__anext__``, or ``None`` when there is none to deliver
        within ``timeout`` seconds (``0``: only what the agent already produced, without waiting;
        ``None``: wait as long as it takes, like ``__anext__``).

        ``None`` loses nothing: pull again for what comes next. Lets a consumer mark silence
        (keepalive) and batch what is buffered without a task or timer per event.
        """
        self._timeout = timeout
        return self._gen.__anext__()

    def asend(self, value: None) -> Any:
        return self._gen.asend(value)

    def athrow(self, *args: Any) -> Any:
        return self._gen.athrow(*args)

    def aclose(self) -> Any:
        return self._gen.aclose()

    @property
    def agent_task(self) -> asyncio.Task[None] | None:
        """The task running the agent (``None`` until the first event is requested)."""
        return self._task

    def cancel(self) -> None:
        """Stop the agent; the stream then ends with ``Done(stop_reason="cancelled")``.

        Events the agent produced before the cancel are still delivered, then open parts are
        closed. No effect once the agent has finished on its own. Safe to call from another task.
        """
        if self.cancel_requested or self.stop_reason is not None:
            return
        task = self._task
        if task is not None and task.done():
            return
        self.cancel_requested = True
        if task is not None:
            task.cancel()
            # An agent that swallows the cancel still gets only CANCEL_GRACE more seconds.
            task.get_loop().call_later(CANCEL_GRACE, self._chan.close)

    # -- the two sides

    async def _pump(self) -> None:
        """Task body: iterate the agent and feed the channel; failures are kept, not raised."""
        offer, put = self._chan.offer, self._chan.put
        try:
            agen = self.agent(self.ctx)
            if not hasattr(agen, "__anext__"):
                if asyncio.iscoroutine(agen):
                    agen.close()
                raise TypeError(
                    f"the agent returned {type(agen).__name__}, not an async iterator "
                    "(write it as an async generator: async def with yield)"
                )
            async for event in agen:
                if offer(event):  # room in the channel: no coroutine to build and await
                    continue
                try:
                    await put(event)
                except asyncio.CancelledError as exc:
                    await _deliver_cancel(agen, exc)
                    raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            self._failure = exc
            logger.error("agent failed (trace %s)", self.ctx.trace_id, exc_info=exc)

    def _agent_done(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None and self._failure is None:
            self._failure = task.exception()
        self._chan.close()

    async def _stream(self) -> AsyncGenerator[Event | None, None]:
        guard = TurnGuard(self.ctx.trace_id or None)
        if self.cancel_requested:  # cancelled before the first event was asked for
            self.cancelled = True
            self.stop_reason = StopReason.CANCELLED
            yield Done(stop_reason=StopReason.CANCELLED, trace_id=guard.trace_id)
            return
        chan = self._chan
        task = asyncio.get_running_loop().create_task(self._pump(), name="turnwire-agent")
        self._task = task
        task.add_done_callback(self._agent_done)
        accept = guard.accept
        checks = CHECKS.get
        held = chan.items
        tail: list[Event] | None = None
        ended = False
        try:
            while True:
                if held:
                    item = chan.take()
                elif self._timeout is None:
                    item = await chan.get()
                elif self._timeout > 0 and await chan.wait(self._timeout):
                    item = chan.take()
                else:
                    yield None  # nothing within the caller's timeout (see ``pull``)
                    continue
                if item is END:
                    break
                check = checks(type(item))
                if check is None or check(item) is not None:
                    problem = validate_event(item)
                    task.cancel()
                    error = ErrorEvent(message=f"Agent run failed: {problem}", code=INVALID_EVENT_CODE)
                    tail = guard.finish(StopReason.ERROR, error)
                    break
                out = accept(item)
                if out is None:
                    continue
                if isinstance(out, tuple):  # repairs first (no event class is a tuple)
                    for event in out:
                        yield event
                else:
                    yield out
            if tail is None:
                tail = self._tail(guard, task)
            for event in tail[:-1]:
                yield event
            self.stop_reason = guard.stop_reason
            ended = True
            yield tail[-1]
        finally:
            if not ended:
                self.cancelled = True
                self.stop_reason = StopReason.CANCELLED
                self.undelivered = [e for e in chan.drain() if validate_event(e) is None]
            if not task.done() and not await stop_task(task):
                logger.warning("agent did not stop within %.1f s of its cancellation", CANCEL_GRACE)

    def _tail(self, guard: TurnGuard, task: asyncio.Task[None]) -> list[Event]:
        if self.cancel_requested or (task.done() and task.cancelled()):
            self.cancelled = True
            return guard.finish(StopReason.CANCELLED)
        if self._failure is not None:
            error = ErrorEvent(message=failure_message(self._failure), code=FAILURE_CODE)
            return guard.finish(StopReason.ERROR, error)
        return guard.finish()


def run_turn(agent: Agent, ctx: TurnContext) -> TurnRun:
    """Run ``agent`` for one turn; iterate the result for its events (an async generator).

    Every stream it yields is well-formed: deltas only inside open parts, every part closed,
    and exactly one terminal ``Done`` with a stop reason and ``ctx.trace_id``. An agent
    exception becomes ``ErrorEvent(code="agent_run_failed")`` + ``Done("error")``. Closing the
    stream (``aclose()``) or cancelling the consuming task cancels the agent and waits up to one
    second for it; ``TurnRun.cancel()`` ends the stream with ``Done("cancelled")`` instead.
    """
    return TurnRun(agent, ctx)
