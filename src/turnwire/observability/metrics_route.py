"""``GET /metrics``: the app's metrics in the Prometheus text format."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.responses import Response

from turnwire.observability.metrics import TurnMetrics


def add_metrics_route(router: APIRouter, metrics: TurnMetrics, dependencies: Sequence[Any]) -> None:
    """``GET /metrics`` on ``router``, behind ``dependencies`` (the key check, unless it is open)."""

    async def render() -> Response:
        return Response(generate_latest(metrics.registry), media_type=CONTENT_TYPE_LATEST)

    router.add_api_route(
        "/metrics",
        render,
        methods=["GET"],
        tags=["health"],
        summary="Prometheus metrics: turns, tokens, HTTP requests, streams, store, Redis",
        dependencies=list(dependencies),
        include_in_schema=False,
    )
