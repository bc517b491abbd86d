"""What an operator sees of the turns: OpenTelemetry traces, Prometheus metrics, JSON log lines.

Everything here is off by default and costs nothing then: ``observer_for(settings)`` answers
``None`` unless tracing (``--otel``, ``OTEL_EXPORTER_OTLP_ENDPOINT``…) or metrics (``--metrics``)
is asked for, and the OpenTelemetry SDK and ``prometheus_client`` are imported only when they are.
The turn pipeline makes one call per turn when an observer exists (``Observer.start_turn``); the
modules:

- ``switch``: whether tracing or metrics is asked for (environment and settings, no imports);
- ``observer``: the one object an app holds, and the per-turn hook;
- ``tracing``: the SDK's tracer provider and exporter, configured from the standard variables;
- ``turn_span``: the ``invoke_agent`` span of a turn and its ``execute_tool`` children;
- ``model_spans``: the ``chat {model}`` span a model adapter opens around a model call;
- ``metrics`` / ``metrics_route``: the Prometheus registry and ``GET /metrics``;
- ``http``: the ASGI middleware (incoming ``traceparent``, outgoing ``traceparent``, HTTP metrics);
- ``timed_store``: store operations timed (and traced) by name;
- ``json_logs``: ``--log-format json``.
"""

from __future__ import annotations

from turnwire.observability.switch import metrics_requested, observer_for, tracing_requested

__all__ = ["metrics_requested", "observer_for", "tracing_requested"]
