"""One WARNING line per failed turn, so a failure shows at the default log level.

A turn that fails — the agent raised, the model answered 429, a key is missing, an event broke
the protocol — reaches its client as the format's error frame and ends with
``stop_reason: "error"``; the runner keeps the traceback at DEBUG. This wrapper logs the one line
an operator needs to find it: what failed, the agent, the session, the request id (the client's
``x-request-id``) and the trace id (the one the wire shows).
"""

from __future__ import annotations

import logging
from typing import Any

from turnwire.model import Done, ErrorEvent, Event, StopReason
from turnwire.runtime.runner import EventRun

log = logging.getLogger("turnwire.server.turns")


class ReportingRun:
    """A running turn, unchanged, that logs a WARNING when its final event says it failed."""

    __slots__ = ("_agent", "_error", "_request_id", "_run", "_session", "_trace_id")

    def __init__(self, run: EventRun, *, agent: str, session: str, request_id: str, trace_id: str) -> None:
        self._run = run
        self._agent = agent
        self._session = session
        self._request_id = request_id
        self._trace_id = trace_id
        self._error: ErrorEvent | None = None

    @property
    def stop_reason(self) -> str | None:
        return self._run.stop_reason

    def __aiter__(self) -> ReportingRun:
        return self

    def __anext__(self) -> Any:
        return self.pull(None)

    async def pull(self, timeout: float | None) -> Event | None:
        event = await self._run.pull(timeout)
        kind = type(event)
        if kind is ErrorEvent:
            self._error = event
        elif kind is Done and event.stop_reason == StopReason.ERROR:
            self._report()
        return event

    async def aclose(self) -> None:
        await self._run.aclose()

    def cancel(self) -> None:
        cancel = getattr(self._run, "cancel", None)
        if cancel is not None:
            cancel()

    def _report(self) -> None:
        error = self._error
        what = f"{error.code or 'error'}: {error.message}" if error is not None else "no error event"
        log.warning(
            "turn failed: %s (agent %r, session %r) [request_id=%s] [trace_id=%s]",
            what,
            self._agent,
            self._session,
            self._request_id,
            self._trace_id,
        )
