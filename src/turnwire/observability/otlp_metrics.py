"""The metrics of ``/metrics`` pushed over OTLP too, by the SDK's periodic reader; imported only
when an OTLP metrics endpoint is configured (``switch.metrics_push_requested``).

Each Prometheus metric of ``TurnMetrics`` is mirrored by an instrument of an OpenTelemetry meter
under the conventions' name (``metrics.SPECS``: ``gen_ai.server.request.duration``…), its labels as
the conventions' attributes (``metrics.ATTRIBUTES``) and the same histogram bounds: what is
observed once goes to both. The reader exports every ``OTEL_METRIC_EXPORT_INTERVAL`` ms (60 s by
default) to ``OTEL_EXPORTER_OTLP_METRICS_ENDPOINT`` (else ``OTEL_EXPORTER_OTLP_ENDPOINT`` +
``/v1/metrics``), cumulative as Prometheus counts.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import MetricExporter, PeriodicExportingMetricReader

from turnwire.observability.metrics import ATTRIBUTES, MetricSpec
from turnwire.observability.tracing import resource


def meter_provider(environ: Mapping[str, str] | None = None) -> MeterProvider:
    """A provider whose periodic reader exports over OTLP (its own: the global one is left alone)."""
    env = os.environ if environ is None else environ
    reader = PeriodicExportingMetricReader(_exporter(env))
    return MeterProvider(resource=resource(), metric_readers=[reader])


def _exporter(env: Mapping[str, str]) -> MetricExporter:
    protocol = (
        env.get("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")
        or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    ).strip()
    if protocol == "grpc":
        from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (  # type: ignore[import-not-found]
            OTLPMetricExporter as GrpcExporter,
        )

        exporter: MetricExporter = GrpcExporter()
        return exporter
    if protocol != "http/protobuf":
        raise ValueError(f"OTEL_EXPORTER_OTLP_PROTOCOL: {protocol!r} is not supported (http/protobuf, grpc)")
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter

    # Endpoint, headers, timeout and compression come from the SDK's variables.
    return OTLPMetricExporter()


def mirror_on(meter: Any) -> Callable[[Any, MetricSpec], Mirrored]:
    """What ``TurnMetrics`` makes each metric with: recorded on ``meter`` too."""
    return lambda metric, spec: mirrored(metric, spec, meter)


def mirrored(metric: Any, spec: MetricSpec, meter: Any) -> Mirrored:
    """``metric`` (Prometheus) with an OpenTelemetry instrument of ``meter`` beside it."""
    if spec.kind == "histogram":
        instrument = meter.create_histogram(
            spec.otel, unit=spec.unit, description=spec.help, explicit_bucket_boundaries_advisory=spec.buckets
        )
        record = instrument.record
    elif spec.kind == "counter":
        record = meter.create_counter(spec.otel, unit=spec.unit, description=spec.help).add
    else:  # a gauge moved up and down
        record = meter.create_up_down_counter(spec.otel, unit=spec.unit, description=spec.help).add
    return Mirrored(metric, record, tuple(ATTRIBUTES.get(label, label) for label in spec.labels))


class Mirrored:
    """A Prometheus metric and its OpenTelemetry twin, used as the Prometheus one is: ``labels``
    then ``observe`` / ``inc``, or ``inc`` / ``dec`` / ``observe`` on an unlabelled one."""

    __slots__ = ("_attributes", "_keys", "_metric", "_record")

    def __init__(
        self, metric: Any, record: Any, keys: tuple[str, ...], attributes: dict[str, str] | None = None
    ) -> None:
        self._metric = metric
        self._record = record
        self._keys = keys
        self._attributes = attributes

    def labels(self, *values: str) -> Mirrored:
        return Mirrored(
            self._metric.labels(*values), self._record, (), dict(zip(self._keys, values, strict=True))
        )

    def observe(self, value: float) -> None:
        self._metric.observe(value)
        self._record(value, self._attributes)

    def inc(self, amount: float = 1) -> None:
        self._metric.inc(amount)
        self._record(amount, self._attributes)

    def dec(self, amount: float = 1) -> None:
        self._metric.dec(amount)
        self._record(-amount, self._attributes)
