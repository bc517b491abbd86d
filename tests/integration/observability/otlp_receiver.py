"""A tiny OTLP/HTTP receiver on loopback: what a collector would get, decoded.

It answers ``POST /v1/traces`` and ``POST /v1/metrics`` as a collector does and keeps every span
of every ``ExportTraceServiceRequest`` as a ``ReceivedSpan`` (ids in hex, attributes as Python
values, the resource's attributes beside them) and every data point of every
``ExportMetricsServiceRequest`` as a ``ReceivedPoint``.
"""

from __future__ import annotations

import gzip
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
    ExportMetricsServiceResponse,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue


@dataclass
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    attributes: dict[str, Any]
    resource: dict[str, Any]
    status_code: int
    links: list[tuple[str, str]]
    start: int
    end: int
    events: list[str] = field(default_factory=list)


@dataclass
class ReceivedPoint:
    """One data point of one metric in one export (exports are cumulative: the latest wins)."""

    metric: str
    unit: str
    kind: str  # sum, gauge, histogram
    attributes: dict[str, Any]
    resource: dict[str, Any]
    value: float = 0.0
    count: int = 0
    bucket_counts: list[int] = field(default_factory=list)
    bounds: list[float] = field(default_factory=list)
    monotonic: bool = False
    export: int = 0


def _value(v: AnyValue) -> Any:
    which = v.WhichOneof("value")
    if which == "array_value":
        return [_value(x) for x in v.array_value.values]
    if which == "kvlist_value":
        return {kv.key: _value(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, which) if which else None


def _attrs(kvs: Any) -> dict[str, Any]:
    return {kv.key: _value(kv.value) for kv in kvs}


class Receiver:
    def __init__(self) -> None:
        self.spans: list[ReceivedSpan] = []
        self.points: list[ReceivedPoint] = []
        self.requests = 0
        self.metric_requests = 0
        self.lock = threading.Condition()
        self.url = ""

    def take(self, body: bytes) -> None:
        request = ExportTraceServiceRequest.FromString(body)
        with self.lock:
            self.requests += 1
            for rs in request.resource_spans:
                resource = _attrs(rs.resource.attributes)
                for ss in rs.scope_spans:
                    for s in ss.spans:
                        self.spans.append(
                            ReceivedSpan(
                                name=s.name,
                                trace_id=s.trace_id.hex(),
                                span_id=s.span_id.hex(),
                                parent_id=s.parent_span_id.hex(),
                                kind=s.kind,
                                attributes=_attrs(s.attributes),
                                resource=resource,
                                status_code=s.status.code,
                                links=[(link.trace_id.hex(), link.span_id.hex()) for link in s.links],
                                start=s.start_time_unix_nano,
                                end=s.end_time_unix_nano,
                                events=[e.name for e in s.events],
                            )
                        )
            self.lock.notify_all()

    def take_metrics(self, body: bytes) -> None:
        request = ExportMetricsServiceRequest.FromString(body)
        with self.lock:
            self.metric_requests += 1
            for rm in request.resource_metrics:
                resource = _attrs(rm.resource.attributes)
                for sm in rm.scope_metrics:
                    for m in sm.metrics:
                        kind = m.WhichOneof("data")
                        for p in getattr(m, kind).data_points:
                            point = ReceivedPoint(
                                m.name,
                                m.unit,
                                kind,
                                _attrs(p.attributes),
                                resource,
                                export=self.metric_requests,
                            )
                            if kind == "histogram":
                                point.count, point.value = p.count, p.sum
                                point.bucket_counts = list(p.bucket_counts)
                                point.bounds = list(p.explicit_bounds)
                            else:
                                point.value = (
                                    p.as_double if p.WhichOneof("value") == "as_double" else p.as_int
                                )
                                point.monotonic = kind == "sum" and m.sum.is_monotonic
                            self.points.append(point)
            self.lock.notify_all()

    def latest(self, metric: str) -> list[ReceivedPoint]:
        """The points of ``metric`` in the latest export that had it."""
        with self.lock:
            found = [p for p in self.points if p.metric == metric]
        last = max((p.export for p in found), default=0)
        return [p for p in found if p.export == last]

    def wait_for(self, found: Callable[[list[ReceivedSpan]], Any], timeout: float = 5.0) -> Any:
        """Wait until ``found(spans)`` is truthy; answer it (AssertionError after ``timeout``)."""
        deadline = time.monotonic() + timeout
        with self.lock:
            while True:
                result = found(list(self.spans))
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"spans never matched; received: {[s.name for s in self.spans]}")
                self.lock.wait(left)

    def trace(self, trace_id: str) -> list[ReceivedSpan]:
        with self.lock:
            return [s for s in self.spans if s.trace_id == trace_id]


@contextmanager
def otlp_receiver() -> Iterator[Receiver]:
    receiver = Receiver()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            if self.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            if self.path == "/v1/traces":
                receiver.take(body)
                out = ExportTraceServiceResponse().SerializeToString()
            elif self.path == "/v1/metrics":
                receiver.take_metrics(body)
                out = ExportMetricsServiceResponse().SerializeToString()
            else:
                self.send_response(404)
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
