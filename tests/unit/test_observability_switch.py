"""Which variables turn tracing and the OTLP metrics push on, as the OpenTelemetry distro reads
them (no SDK needed to decide)."""

from __future__ import annotations

import pytest

from turnwire.observability.switch import metrics_push_requested, tracing_requested
from turnwire.server import Settings

ENDPOINT = "http://collector:4318"


@pytest.mark.parametrize(
    ("environ", "pushed"),
    [
        ({}, False),
        ({"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": ENDPOINT + "/v1/metrics"}, True),
        ({"OTEL_METRICS_EXPORTER": "otlp"}, True),
        ({"OTEL_METRICS_EXPORTER": "console, otlp"}, True),
        # An endpoint for every signal turns tracing on; metrics are pushed when named.
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT}, False),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT, "OTEL_METRICS_EXPORTER": "otlp"}, True),
        ({"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": ENDPOINT, "OTEL_METRICS_EXPORTER": "none"}, False),
        ({"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": ENDPOINT, "OTEL_SDK_DISABLED": "true"}, False),
    ],
)
def test_the_metrics_push_is_asked_for_by_name(environ: dict[str, str], pushed: bool) -> None:
    assert metrics_push_requested(environ) is pushed


def test_a_metrics_endpoint_alone_does_not_turn_tracing_on() -> None:
    environ = {"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": ENDPOINT + "/v1/metrics"}
    assert not tracing_requested(Settings(), environ)
    assert tracing_requested(Settings(), {"OTEL_EXPORTER_OTLP_ENDPOINT": ENDPOINT})
