"""The one object an observed app holds (``AppContext.observe``) and the per-turn hook.

``Observer.start_turn`` is the pipeline's one call per turn: it opens the turn's span (whose trace
id becomes the turn's) and starts its clock; ``TurnWatch.watch`` wraps the turn's events so both
see each event as the door delivers it, and end with the turn's final event.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from turnwire.model import Done
from turnwire.observability.http import current_request
from turnwire.runtime.context import new_random_id

log = logging.getLogger("turnwire.observability")

if TYPE_CHECKING:
    from turnwire.observability.metrics import TurnClock, TurnMetrics
    from turnwire.observability.span_book import SpanBook
    from turnwire.observability.turn_span import TurnSpan, TurnTracer
    from turnwire.runtime.runner import EventRun
    from turnwire.server.settings import Settings


class Observer:
    """Tracing (``tracer``) and metrics (``metrics``) of one app; either may be ``None``."""

    def __init__(
        self,
        tracer: TurnTracer | None,
        metrics: TurnMetrics | None,
        provider: Any = None,
        meter_provider: Any = None,
        *,
        serve_metrics: bool = True,
    ) -> None:
        self.tracer = tracer
        self.metrics = metrics
        self.provider = provider
        """The SDK's tracer provider (``flush``, ``shutdown``), when tracing."""
        self.meter_provider = meter_provider
        """The SDK's meter provider, when the metrics are pushed over OTLP."""
        self.serve_metrics = serve_metrics and metrics is not None
        """Whether ``GET /metrics`` is served (``--metrics``); pushed only, they are not."""

    @classmethod
    def build(
        cls,
        settings: Settings,
        *,
        trace: bool,
        metrics: bool,
        push: bool = False,
        environ: Mapping[str, str] | None = None,
    ) -> Observer:
        tracer = provider = None
        if trace:
            from turnwire import __version__
            from turnwire.observability.tracing import capture_content, tracer_provider
            from turnwire.observability.turn_span import TurnTracer

            provider = tracer_provider(environ)
            otel_tracer = provider.get_tracer("turnwire", __version__)
            tracer = TurnTracer(otel_tracer, capture_content=capture_content(environ))
        measured = meters = mirror = None
        if push:
            from turnwire import __version__
            from turnwire.observability.otlp_metrics import meter_provider, mirror_on

            meters = meter_provider(environ)
            mirror = mirror_on(meters.get_meter("turnwire", __version__))
        if metrics or push:
            from turnwire.observability.metrics import TurnMetrics

            measured = TurnMetrics(mirror)
        return cls(tracer, measured, provider, meters, serve_metrics=metrics)

    def start_turn(self, agent: str, session_id: str, scope: str, *, resume: bool) -> TurnWatch:
        request = current_request()
        wire = request.wire if request is not None else "http"
        span = (
            None
            if self.tracer is None
            else self.tracer.start(agent, session_id, scope, request, resume=resume)
        )
        clock = None if self.metrics is None else self.metrics.start_turn(agent, wire, resume=resume)
        # Traced, the turn's trace id is its span's; else a fresh one, as the pipeline mints it.
        trace_id = new_random_id() if span is None else span.trace_id
        if request is not None:
            request.trace_id, request.session = trace_id, session_id
        return TurnWatch(span, clock, trace_id)

    def use_spans(self, book: SpanBook) -> None:
        """Record the turns' spans in ``book`` (Agentex's ``/spans``; the store's, once open)."""
        if self.tracer is not None:
            self.tracer.book = book

    def timed_store(self, store: Any) -> Any:
        """``store`` with its operations timed (metrics on) and traced in traced turns (tracing
        on); else ``store`` itself."""
        if self.metrics is None and self.tracer is None:
            return store
        from turnwire.observability.timed_store import TimedStore

        return TimedStore(store, self.metrics, traced=self.tracer is not None)

    def flush(self, timeout_millis: int = 5000) -> bool:
        """Export every ended span (and, pushed, the metrics) now (tests, shutdown)."""
        spans = self.provider is None or bool(self.provider.force_flush(timeout_millis))
        metrics = self.meter_provider is None or bool(self.meter_provider.force_flush(timeout_millis))
        return spans and metrics

    def shutdown(self) -> None:
        if self.provider is not None:
            self.provider.shutdown()
        if self.meter_provider is not None:
            self.meter_provider.shutdown()


class TurnWatch:
    """One turn's span and clock."""

    __slots__ = ("clock", "span", "trace_id")

    def __init__(self, span: TurnSpan | None, clock: TurnClock | None, trace_id: str) -> None:
        self.span = span
        self.clock = clock
        self.trace_id = trace_id
        """The turn's trace id: its span's when traced."""

    def attach(self) -> object:
        """Make the turn's span current while the turn is being started (``detach`` after): the
        store reads and waits before its first event are its children. ``None`` untraced."""
        span = self.span
        return None if span is None else (span, span.attach())

    @staticmethod
    def detach(attached: Any) -> None:
        if attached is not None:
            span, tokens = attached
            span.detach(tokens)

    def watch(self, events: EventRun, task_id: str | None = None) -> EventRun:
        """``events`` seen by this watch as they are pulled; ``task_id``: the turn's task."""
        if self.span is not None:
            self.span.task_id = task_id
        return WatchedRun(events, self)

    def failed(self, exc: BaseException) -> None:
        """The turn was refused or failed to start: its span and clock end as an error."""
        if self.span is not None:
            self.span.fail(exc)
        if self.clock is not None:
            status = getattr(exc, "status", None)
            self.clock.end("error", str(status) if isinstance(status, int) else type(exc).__qualname__)

    def ended(self, stop_reason: str | None) -> None:
        if self.span is not None:
            self.span.end(stop_reason)
        if self.clock is not None:
            self.clock.end(stop_reason)


class WatchedRun:
    """A running turn, unchanged, whose events its watch sees as they are pulled."""

    __slots__ = ("_run", "_watch")

    def __init__(self, run: EventRun, watch: TurnWatch) -> None:
        self._run = run
        self._watch = watch

    @property
    def stop_reason(self) -> str | None:
        return self._run.stop_reason

    def __getattr__(self, name: str) -> Any:
        # What a door reads of the run it was given (``cancel``, the recorder's fields) passes through.
        return getattr(self._run, name)

    @property
    def work_context(self) -> tuple[Any, Any] | None:
        """(tracer, context with the turn's span current) for work done for the turn after its
        events (the Redis write of its log's end), or ``None`` untraced."""
        span = self._watch.span
        if span is None:
            return None
        return span.tracer.tracer, span.context()

    def __aiter__(self) -> WatchedRun:
        return self

    def __anext__(self) -> Any:
        return self.pull(None)

    async def pull(self, timeout: float | None) -> Any:
        watch = self._watch
        if watch.span is not None:
            # The first pull starts the agent's task, the later ones the recorder's writes: each
            # inherits the span as its current one (and the tracer: model and store spans).
            tokens = watch.span.attach()
            try:
                event = await self._run.pull(timeout)
            finally:
                watch.span.detach(tokens)
        else:
            event = await self._run.pull(timeout)
        if event is not None:
            span = watch.span
            final = span is not None and type(event) is Done
            try:
                if final:
                    await span.before_end()  # type: ignore[union-attr]
                if span is not None:
                    span.on_event(event)
                if watch.clock is not None:
                    watch.clock.on_event(event)
                if final:
                    await span.after_end()  # type: ignore[union-attr]
            except Exception:
                # Observing a turn must never break it: this turn goes on unobserved.
                log.exception("observing a turn failed; the turn goes on without its span and metrics")
                watch.span = watch.clock = None
        return event

    async def aclose(self) -> None:
        try:
            await self._run.aclose()
        finally:
            # Closed before its final event was delivered: the turn was stopped.
            self._watch.ended(self._run.stop_reason or "cancelled")
