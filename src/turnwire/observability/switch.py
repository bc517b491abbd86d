"""Whether tracing or metrics is asked for: read from the settings and the standard OpenTelemetry
variables without importing anything, so a server that asks for neither pays nothing."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from turnwire.observability.observer import Observer
    from turnwire.server.settings import Settings

log = logging.getLogger("turnwire.observability")

EXTRA_HINT = "install the extra: pip install 'turnwire[otel]'"


def tracing_requested(settings: Settings, environ: Mapping[str, str] | None = None) -> bool:
    """``settings.otel``, or the variables that turn the OpenTelemetry distro on: an OTLP endpoint
    (``OTEL_EXPORTER_OTLP_ENDPOINT`` / ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) or a traces
    exporter named in ``OTEL_TRACES_EXPORTER`` (``none`` turns it off, as does
    ``OTEL_SDK_DISABLED=true``)."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter == "none":
        return False
    if settings.otel or exporter:
        return True
    return bool(env.get("OTEL_EXPORTER_OTLP_ENDPOINT") or env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))


def metrics_requested(settings: Settings) -> bool:
    """``settings.metrics``: ``GET /metrics`` is served and the turns are measured."""
    return settings.metrics


def metrics_push_requested(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the metrics go out over OTLP too: ``OTEL_EXPORTER_OTLP_METRICS_ENDPOINT``, or
    ``OTEL_METRICS_EXPORTER=otlp`` (to ``OTEL_EXPORTER_OTLP_ENDPOINT``, else the SDK's default);
    ``OTEL_METRICS_EXPORTER=none`` or ``OTEL_SDK_DISABLED=true`` keeps them in.
    An endpoint for every signal (``OTEL_EXPORTER_OTLP_ENDPOINT``) alone turns tracing on, not
    this: metrics pushed every minute by every worker are a choice to make by name."""
    env = os.environ if environ is None else environ
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_METRICS_EXPORTER", "").strip().lower()
    if exporter:
        return "otlp" in [name.strip() for name in exporter.split(",")]
    return bool(env.get("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"))


def observer_for(settings: Settings, environ: Mapping[str, str] | None = None) -> Observer | None:
    """The observer an app with ``settings`` holds, or ``None`` when nothing is observed.

    Tracing asked for by the settings (``--otel``) without the ``otel`` extra installed is an
    error (``RuntimeError``); asked for only by ``OTEL_*`` variables, which may be meant for other
    programs of the same environment, it is a warning and tracing stays off."""
    trace = tracing_requested(settings, environ)
    metrics = metrics_requested(settings)
    push = metrics_push_requested(environ)
    if not trace and not metrics and not push and settings.log_format != "json":
        return None
    from turnwire.observability.observer import Observer

    try:
        return Observer.build(settings, trace=trace, metrics=metrics, push=push, environ=environ)
    except ImportError as exc:
        if settings.otel or metrics:
            raise RuntimeError(
                f"tracing and metrics need the OpenTelemetry SDK ({exc}): {EXTRA_HINT}"
            ) from None
        log.warning("OTEL_* variables ask for tracing but the SDK is missing (%s): %s", exc, EXTRA_HINT)
    return Observer.build(settings, trace=False, metrics=metrics, environ=environ) if metrics else None
