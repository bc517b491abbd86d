"""Error codes for a model server's HTTP statuses, shared by every model adapter so a client sees the
same ``code`` whichever adapter met the failure."""

from __future__ import annotations

from typing import Final

STATUS_CODES: Final = {
    400: "model_bad_request",
    401: "model_unauthorized",
    403: "model_forbidden",
    404: "model_not_found",
    408: "model_timeout",
    409: "model_conflict",
    413: "model_bad_request",
    422: "model_bad_request",
    429: "model_rate_limited",
}


def status_code(status: int) -> str:
    """``model_<what>`` for an HTTP status; ``model_server_error`` for any 5xx, ``model_error`` else."""
    return STATUS_CODES.get(status, "model_server_error" if status >= 500 else "model_error")
