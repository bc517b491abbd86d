"""The Prometheus metrics of one app (its own registry), and the per-turn clock that feeds them.

Names are the OpenTelemetry semantic conventions' in Prometheus form (dots to underscores, the
unit as a suffix): ``gen_ai_server_request_duration_seconds``,
``gen_ai_server_time_to_first_token_seconds``, ``gen_ai_server_time_per_output_token_seconds``,
``gen_ai_client_token_usage`` (by ``gen_ai_token_type``), ``http_server_request_duration_seconds``;
turnwire's own start with ``turnwire_``. Bucket bounds are the conventions' advice.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

from turnwire.model import Done, ErrorEvent, MessageDelta, MessageEvent, ThoughtDelta, Usage

DURATION_BUCKETS: Final = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)
TTFT_BUCKETS: Final = (
    0.001,
    0.005,
    0.01,
    0.02,
    0.04,
    0.06,
    0.08,
    0.1,
    0.25,
    0.5,
    0.75,
    1.0,
    2.5,
    5.0,
    7.5,
    10.0,
)
TPOT_BUCKETS: Final = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5)
TOKEN_BUCKETS: Final = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216)
HTTP_BUCKETS: Final = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)
STORE_BUCKETS: Final = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)

TURN_LABELS: Final = ("gen_ai_agent_name", "turnwire_wire")
_FIRST_OUTPUT: Final = (MessageDelta, MessageEvent, ThoughtDelta)
REDIS_LOGGERS: Final = ("turnwire.conversations.pubsub", "turnwire.conversations.turnlogs")


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric, in both its names: Prometheus' (``/metrics``) and the conventions' (OTLP)."""

    kind: str  # histogram, counter, gauge (a gauge is only ever moved by inc / dec)
    prometheus: str
    otel: str
    unit: str
    help: str
    labels: tuple[str, ...] = ()
    buckets: tuple[float, ...] = ()


SPECS: Final = {
    "request_duration": MetricSpec(
        "histogram",
        "gen_ai_server_request_duration_seconds",
        "gen_ai.server.request.duration",
        "s",
        "Duration of a turn, from its request to its last event.",
        (*TURN_LABELS, "error_type"),
        DURATION_BUCKETS,
    ),
    "time_to_first_token": MetricSpec(
        "histogram",
        "gen_ai_server_time_to_first_token_seconds",
        "gen_ai.server.time_to_first_token",
        "s",
        "Time from a turn's request to its first output (text or reasoning).",
        TURN_LABELS,
        TTFT_BUCKETS,
    ),
    "time_per_output_token": MetricSpec(
        "histogram",
        "gen_ai_server_time_per_output_token_seconds",
        "gen_ai.server.time_per_output_token",
        "s",
        "Time per output token after the first, for turns whose agent reports usage.",
        TURN_LABELS,
        TPOT_BUCKETS,
    ),
    "token_usage": MetricSpec(
        "histogram",
        "gen_ai_client_token_usage",
        "gen_ai.client.token.usage",
        "{token}",
        "Tokens a turn used, as its agent reported them (gen_ai_token_type: input or output).",
        (*TURN_LABELS, "gen_ai_token_type"),
        TOKEN_BUCKETS,
    ),
    "turns": MetricSpec(
        "counter",
        "turnwire_turns",
        "turnwire.turns",
        "{turn}",
        "Turns ended, by stop reason.",
        (*TURN_LABELS, "turnwire_stop_reason"),
    ),
    "live_turns": MetricSpec(
        "gauge", "turnwire_live_turns", "turnwire.live_turns", "{turn}", "Turns running in this process."
    ),
    "approvals_pending": MetricSpec(
        "gauge",
        "turnwire_approvals_pending",
        "turnwire.approvals_pending",
        "{turn}",
        "Turns this process paused on an approval or a client tool and not yet resumed here.",
    ),
    "http_duration": MetricSpec(
        "histogram",
        "http_server_request_duration_seconds",
        "http.server.request.duration",
        "s",
        "Duration of HTTP requests (a stream's until its last byte).",
        ("http_request_method", "http_route", "http_response_status_code"),
        HTTP_BUCKETS,
    ),
    "open_streams": MetricSpec(
        "gauge",
        "turnwire_open_streams",
        "turnwire.open_streams",
        "{stream}",
        "Streamed responses being sent.",
    ),
    "store_duration": MetricSpec(
        "histogram",
        "turnwire_store_operation_duration_seconds",
        "turnwire.store.operation.duration",
        "s",
        "Duration of store operations, by operation.",
        ("operation",),
        STORE_BUCKETS,
    ),
    "redis_errors": MetricSpec(
        "counter",
        "turnwire_redis_errors",
        "turnwire.redis.errors",
        "{error}",
        "Redis failures turnwire logged (publish, subscribe, turn logs).",
    ),
}
"""Every metric of an app, by the ``TurnMetrics`` attribute that holds it."""

ATTRIBUTES: Final = {
    "gen_ai_agent_name": "gen_ai.agent.name",
    "turnwire_wire": "turnwire.wire",
    "error_type": "error.type",
    "gen_ai_token_type": "gen_ai.token.type",
    "turnwire_stop_reason": "turnwire.stop_reason",
    "http_request_method": "http.request.method",
    "http_route": "http.route",
    "http_response_status_code": "http.response.status_code",
    "operation": "turnwire.store.operation",
}
"""Prometheus label -> the OTLP attribute of the same meaning."""

_PROMETHEUS: Final = {"histogram": Histogram, "counter": Counter, "gauge": Gauge}


class TurnMetrics:
    """Every metric of one app (``SPECS``), registered on ``registry`` (what ``GET /metrics``
    renders); with ``mirror`` (OTLP push on: ``otlp_metrics.mirror_on``), each is what
    ``mirror(metric, spec)`` makes of it, recorded in an OpenTelemetry instrument too."""

    request_duration: Any
    time_to_first_token: Any
    time_per_output_token: Any
    token_usage: Any
    turns: Any
    live_turns: Any
    approvals_pending: Any
    http_duration: Any
    open_streams: Any
    store_duration: Any
    redis_errors: Any

    def __init__(self, mirror: Callable[[Any, MetricSpec], Any] | None = None) -> None:
        r = self.registry = CollectorRegistry()
        for attribute, spec in SPECS.items():
            extra = {"buckets": spec.buckets} if spec.buckets else {}
            metric = _PROMETHEUS[spec.kind](spec.prometheus, spec.help, spec.labels, registry=r, **extra)
            if mirror is not None:
                metric = mirror(metric, spec)
            setattr(self, attribute, metric)
        self.paused = 0
        handler = _CountingHandler(self.redis_errors)
        for name in REDIS_LOGGERS:
            logging.getLogger(name).addHandler(handler)

    def start_turn(self, agent: str, wire: str, *, resume: bool) -> TurnClock:
        self.live_turns.inc()
        if resume and self.paused > 0:
            self.paused -= 1
            self.approvals_pending.dec()
        return TurnClock(self, agent, wire)


class TurnClock:
    """One turn's times and tokens, observed once its final event passes (``on_event``)."""

    __slots__ = ("_error", "_first", "_metrics", "_output_tokens", "agent", "ended", "started", "wire")

    def __init__(self, metrics: TurnMetrics, agent: str, wire: str) -> None:
        self._metrics = metrics
        self.agent = agent
        self.wire = wire
        self.started = time.perf_counter()
        self._first: float | None = None
        self._output_tokens = 0
        self._error: str | None = None
        self.ended = False

    def on_event(self, event: Any) -> None:
        kind = type(event)
        if self._first is None and kind in _FIRST_OUTPUT:
            self._first = time.perf_counter()
            self._metrics.time_to_first_token.labels(self.agent, self.wire).observe(
                self._first - self.started
            )
        elif kind is Usage:
            m = self._metrics
            if event.input:
                m.token_usage.labels(self.agent, self.wire, "input").observe(event.input)
            if event.output:
                m.token_usage.labels(self.agent, self.wire, "output").observe(event.output)
                self._output_tokens += event.output
        elif kind is ErrorEvent:
            self._error = event.code or "agent_error"
        elif kind is Done:
            self.end(event.stop_reason)

    def end(self, stop_reason: str | None, error: str | None = None) -> None:
        if self.ended:
            return
        self.ended = True
        m = self._metrics
        now = time.perf_counter()
        reason = stop_reason or "unknown"
        if reason == "error":
            error = error or self._error or "agent_error"
        m.live_turns.dec()
        m.turns.labels(self.agent, self.wire, reason).inc()
        m.request_duration.labels(self.agent, self.wire, error or "").observe(now - self.started)
        if self._first is not None and self._output_tokens > 1:
            m.time_per_output_token.labels(self.agent, self.wire).observe(
                (now - self._first) / (self._output_tokens - 1)
            )
        if reason == "paused":
            m.paused += 1
            m.approvals_pending.inc()


class _CountingHandler(logging.Handler):
    """Counts the WARNING-and-worse records of the Redis modules: each is one Redis failure."""

    def __init__(self, counter: Any) -> None:
        super().__init__(logging.WARNING)
        self.counter = counter

    def emit(self, record: logging.LogRecord) -> None:
        # "task updates reach Redis again" is a WARNING too, and no failure.
        if record.levelno >= logging.ERROR or "fail" in str(record.msg):
            self.counter.inc()
