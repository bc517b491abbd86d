"""The OpenTelemetry SDK configured the standard way; imported only when tracing is on.

The variables are the SDK's own: ``OTEL_SERVICE_NAME`` and ``OTEL_RESOURCE_ATTRIBUTES`` (the
resource; ``service.name`` defaults to ``turnwire``), ``OTEL_TRACES_EXPORTER`` (``otlp``, the
default, or ``console``), ``OTEL_EXPORTER_OTLP_PROTOCOL`` / ``OTEL_EXPORTER_OTLP_TRACES_PROTOCOL``
(``http/protobuf``, the default; ``grpc`` with the gRPC exporter installed),
``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` (default
``http://localhost:4318``), ``OTEL_TRACES_SAMPLER``, ``OTEL_BSP_*`` (the batch processor) and
``OTEL_PROPAGATORS`` (W3C trace context and baggage by default).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter, SpanExporter

DEFAULT_SERVICE_NAME = "turnwire"
CAPTURE_CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"


def tracer_provider(environ: Mapping[str, str] | None = None) -> TracerProvider:
    """A provider exporting in batches to what the variables name (its own: the process-wide
    provider is left alone, so two apps in one process trace apart; ``turnwire serve`` makes it
    the global one too, see ``install_global``)."""
    env = os.environ if environ is None else environ
    provider = TracerProvider(resource=resource())
    for exporter in _exporters(env):
        provider.add_span_processor(BatchSpanProcessor(exporter))
    return provider


def resource() -> Resource:
    """The resource of turnwire's spans and metrics: ``OTEL_SERVICE_NAME`` / ``OTEL_RESOURCE_ATTRIBUTES``
    as the SDK reads them, ``service.name`` ``turnwire`` unless they name one."""
    found = Resource.create()
    if str(found.attributes.get(SERVICE_NAME, "")).startswith("unknown_service"):
        found = found.merge(Resource({SERVICE_NAME: DEFAULT_SERVICE_NAME}))
    return found


def install_global(provider: TracerProvider) -> None:
    """Make ``provider`` the process's, so other instrumentation (an HTTP client's, a framework's)
    joins the same traces; once per process (the SDK refuses a second)."""
    from opentelemetry import trace

    if type(trace.get_tracer_provider()).__name__ == "ProxyTracerProvider":
        trace.set_tracer_provider(provider)


def capture_content(environ: Mapping[str, str] | None = None) -> bool:
    """Whether tool arguments and results go on the spans (GenAI's opt-in variable)."""
    env = os.environ if environ is None else environ
    return env.get(CAPTURE_CONTENT_VARIABLE, "").strip().lower() in ("true", "1", "yes")


def _exporters(env: Mapping[str, str]) -> list[SpanExporter]:
    names = [n.strip().lower() for n in env.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if n.strip()]
    out: list[SpanExporter] = []
    for name in names or ["otlp"]:
        if name == "otlp":
            out.append(_otlp_exporter(env))
        elif name == "console":
            out.append(ConsoleSpanExporter())
        elif name != "none":
            raise ValueError(
                f"OTEL_TRACES_EXPORTER: {name!r} is not an exporter turnwire knows (otlp, console)"
            )
    return out


def _otlp_exporter(env: Mapping[str, str]) -> SpanExporter:
    protocol = (
        env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    ).strip()
    exporter: SpanExporter
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found]
            OTLPSpanExporter as GrpcExporter,
        )

        exporter = GrpcExporter()
    elif protocol == "http/protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        # The exporter reads its endpoint, headers, timeout and compression from the variables.
        exporter = OTLPSpanExporter()
    else:
        raise ValueError(f"OTEL_EXPORTER_OTLP_PROTOCOL: {protocol!r} is not supported (http/protobuf, grpc)")
    return exporter
