"""``--log-format json``: one JSON object per line, with what joins a line to its request and turn.

Each line holds ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, and when known
``request_id`` (the response's ``x-request-id``), ``trace_id`` / ``span_id`` (the turn's span, or
the trace id the wire shows when tracing is off), ``session`` and ``exception`` (the traceback).
uvicorn's own lines (startup, access log) get the same shape.
"""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime
from typing import Any, Final

import orjson

from turnwire.observability.http import current_request
from turnwire.server.http.request_id import current_request_id

_RESERVED: Final = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime", "color_message"}


class JsonFormatter(logging.Formatter):
    """A record as one JSON line (see the module docstring); ``extra=`` fields are kept too."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = current_request_id()
        if rid is not None:
            out["request_id"] = rid
        out.update(_turn_fields())
        for key, value in record.__dict__.items():
            if key not in _RESERVED and not key.startswith("_"):
                out[key] = value
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(out, default=str).decode()


def _turn_fields() -> dict[str, str]:
    """The trace and session of the running context: the current span when OpenTelemetry is
    loaded and one is current, else what the request's turn left (``RequestTrace``)."""
    out: dict[str, str] = {}
    otel = sys.modules.get("opentelemetry.trace")
    if otel is not None:
        ctx = otel.get_current_span().get_span_context()
        if ctx.is_valid:
            out["trace_id"], out["span_id"] = f"{ctx.trace_id:032x}", f"{ctx.span_id:016x}"
    request = current_request()
    if request is not None:
        if "trace_id" not in out and request.trace_id is not None:
            out["trace_id"] = request.trace_id
            if request.traceparent is not None:
                out["span_id"] = request.traceparent.split("-")[2]
        if request.session is not None:
            out["session"] = request.session
    return out


def install_json_logs(level: str) -> None:
    """turnwire's log lines as JSON on stderr, at ``level``."""
    logger = logging.getLogger("turnwire")
    logger.setLevel(level.upper())
    for handler in list(logger.handlers):
        logger.removeHandler(handler)
    handler = logging.StreamHandler()
    handler.setFormatter(JsonFormatter())
    logger.addHandler(handler)


def uvicorn_json_log_config() -> dict[str, Any]:
    """uvicorn's ``log_config`` with every line (``uvicorn``, ``uvicorn.error``, ``uvicorn.access``)
    as JSON on stderr."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.JsonFormatter"}},
        "handlers": {"json": handler},
        "loggers": {
            "uvicorn": {"handlers": ["json"], "level": "INFO", "propagate": False},
            "uvicorn.error": {"level": "INFO"},
            "uvicorn.access": {"handlers": ["json"], "level": "INFO", "propagate": False},
        },
    }
