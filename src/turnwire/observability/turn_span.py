"""The span of one turn, ``invoke_agent {agent}``, and its ``execute_tool {tool}`` children.

Attributes follow the OpenTelemetry GenAI semantic conventions (``gen_ai.*``) plus
``turnwire.wire`` (the door) and ``turnwire.stop_reason``. The span's trace id is the turn's trace
id, the one every wire shows (Agenta ``done.traceId``, Vercel ``messageMetadata.traceId``,
``x-ag-trace-id``...): the pipeline takes it from here instead of minting one. A turn that
resumes a paused one (an approval answered) carries a span link to the paused turn's span: the
one this process remembers, else the paused span another worker stored (``span_book``), looked up
while the turn runs and linked before its span ends.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import OrderedDict
from typing import Any, Final

import orjson
from opentelemetry import context as otel_context
from opentelemetry import propagate, trace
from opentelemetry.trace import Link, Span, SpanContext, SpanKind, Status, StatusCode, TraceFlags, Tracer

from turnwire.model import Done, ErrorEvent, ToolCall, ToolResult, Usage
from turnwire.observability.http import RequestTrace
from turnwire.observability.model_spans import CURRENT_TRACER
from turnwire.observability.span_book import DRAIN_SECONDS, MEMORY, SpanBook, StoredSpans, recorded_span

PAUSED_REMEMBERED: Final = 4096
"""Paused turns whose span a resuming turn can link to (per process, oldest forgotten first)."""
TRACES_REMEMBERED: Final = 65_536
"""Trace ids of the latest turns: a client trace reused for another turn gets a trace of its own."""


class TurnTracer:
    """Starts the turns' spans on one tracer; remembers paused turns to link their resumptions."""

    def __init__(self, tracer: Tracer, *, capture_content: bool = False) -> None:
        self.tracer = tracer
        self.capture_content = capture_content
        self.book: SpanBook = MEMORY
        """Where the ended spans go for Agentex's ``/spans`` (``Observer.use_spans``)."""
        self._paused: OrderedDict[str, SpanContext] = OrderedDict()
        self._traces: OrderedDict[int, None] = OrderedDict()

    def start(
        self, agent: str, session_id: str, scope: str, request: RequestTrace | None, *, resume: bool
    ) -> TurnSpan:
        parent = otel_context.get_current()
        links: list[Link] = []
        if request is not None and request.carrier:
            parent = propagate.extract(request.carrier, context=parent)
            client = trace.get_current_span(parent).get_span_context()
            if client.is_valid and client.trace_id in self._traces:
                # The trace id is the turn's id on the wire (message and response ids): a client
                # trace this process already gave a turn gets a new trace, linked to the client's.
                links.append(Link(client, {"turnwire.link": "client"}))
                parent = otel_context.Context()
        paused = self._paused.pop(scope, None) if resume else None
        if paused is not None:
            links.append(Link(paused, {"turnwire.link": "resumes"}))
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.agent.name": agent,
            "gen_ai.conversation.id": session_id,
            "turnwire.wire": request.wire if request is not None else "http",
        }
        span = self.tracer.start_span(
            f"invoke_agent {agent}",
            context=parent,
            kind=SpanKind.SERVER,
            attributes=attributes,
            links=links or None,
        )
        self._remember_trace(span.get_span_context().trace_id)
        turn = TurnSpan(self, span, parent, scope, session_id)
        if resume and paused is None and isinstance(self.book, StoredSpans):
            # Paused on another worker (or before a restart): its span is in the stored book.
            turn.paused_lookup = _start_lookup(self.book, turn.tenant, session_id)
        if request is not None:
            request.traceparent = turn.traceparent
        return turn

    def _remember_trace(self, trace_id: int) -> None:
        self._traces[trace_id] = None
        while len(self._traces) > TRACES_REMEMBERED:
            self._traces.popitem(last=False)

    def remember_paused(self, scope: str, span: SpanContext) -> None:
        self._paused[scope] = span
        self._paused.move_to_end(scope)
        while len(self._paused) > PAUSED_REMEMBERED:
            self._paused.popitem(last=False)


class TurnSpan:
    """One turn's span, fed the turn's events as they are delivered (``on_event``)."""

    __slots__ = (
        "_error",
        "_input_tokens",
        "_output_tokens",
        "_tools",
        "current",
        "ended",
        "parent",
        "paused_lookup",
        "scope",
        "session_id",
        "span",
        "stop_reason",
        "task_id",
        "tenant",
        "tracer",
    )

    def __init__(
        self, tracer: TurnTracer, span: Span, parent: otel_context.Context, scope: str, session_id: str
    ) -> None:
        self.tracer = tracer
        self.span = span
        self.parent = parent
        self.scope = scope
        self.session_id = session_id
        self.paused_lookup: asyncio.Task[Any] | None = None
        """The stored span of the paused turn this one resumes, being looked up."""
        self.ended = False
        self.current: otel_context.Context | None = None
        """The parent's context with this span current (``attach``), once built."""
        self.stop_reason: str | None = None
        self.task_id: str | None = None
        """The turn's task (known once its conversation is open): ``/spans?task_id=``."""
        self.tenant = scope.partition("\x1f")[0] if "\x1f" in scope else ""
        self._tools: dict[str, Span] = {}
        self._error: str | None = None
        self._input_tokens = 0
        self._output_tokens = 0

    @property
    def trace_id(self) -> str:
        return format(self.span.get_span_context().trace_id, "032x")

    @property
    def traceparent(self) -> str:
        ctx = self.span.get_span_context()
        return f"00-{ctx.trace_id:032x}-{ctx.span_id:016x}-{int(ctx.trace_flags):02x}"

    def attach(self) -> object:
        """Make the span current (and the tracer the model adapters') until ``detach``: the agent's
        task, started on the first pull, inherits both, so its model calls are the span's children.
        Done on every pull: the context is built once."""
        token = otel_context.attach(self.context())
        return (token, CURRENT_TRACER.set(self.tracer.tracer))

    def context(self) -> otel_context.Context:
        """The parent's context with this span current (built once)."""
        current = self.current
        if current is None:
            current = self.current = trace.set_span_in_context(self.span, self.parent)
        return current

    @staticmethod
    def detach(tokens: Any) -> None:
        token, tracer_token = tokens
        CURRENT_TRACER.reset(tracer_token)
        otel_context.detach(token)

    def on_event(self, event: Any) -> None:
        kind = type(event)
        if kind is ToolCall:
            self._tool_called(event)
        elif kind is ToolResult:
            self._tool_answered(event)
        elif kind is Usage:
            self._input_tokens += event.input or 0
            self._output_tokens += event.output or 0
        elif kind is ErrorEvent:
            self._error = event.code or "agent_error"
        elif kind is Done:
            self.end(event.stop_reason)

    def end(self, stop_reason: str | None, error: str | None = None) -> None:
        """End the span (and its open tool spans) with the turn's stop reason; once."""
        if self.ended:
            return
        self.ended = True
        span = self.span
        reason = self.stop_reason = stop_reason or "unknown"
        span.set_attribute("turnwire.stop_reason", reason)
        span.set_attribute("gen_ai.response.finish_reasons", [reason])
        if self._input_tokens or self._output_tokens:
            span.set_attribute("gen_ai.usage.input_tokens", self._input_tokens)
            span.set_attribute("gen_ai.usage.output_tokens", self._output_tokens)
        error = error or ((self._error or "agent_error") if reason == "error" else None)
        if error is not None:
            span.set_attribute("error.type", error)
            span.set_status(Status(StatusCode.ERROR, error))
        for tool in self._tools.values():
            # A call left open: the turn paused on it (an approval, a client tool) or stopped.
            tool.set_attribute("turnwire.tool.pending", True)
            self._end_tool(tool)
        self._tools.clear()
        if self.task_id is not None:
            span.set_attribute("turnwire.task_id", self.task_id)
        self._link_paused()
        recording = span.is_recording()  # False for a span the sampler dropped: nothing to keep
        span.end()
        if recording:
            recorded = recorded_span(span, task_id=self.task_id, output={"stop_reason": reason})
            self.tracer.book.put(self.tenant, recorded, self.session_id)
        if reason == "paused":
            self.tracer.remember_paused(self.scope, span.get_span_context())

    async def before_end(self) -> None:
        """Before the turn's final event goes out: the paused span looked up (bounded), so the
        link is on the span when it ends."""
        lookup = self.paused_lookup
        if lookup is not None and not lookup.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(lookup), DRAIN_SECONDS)

    async def after_end(self) -> None:
        """After the final event: a paused turn's span stored before the client can answer it, so
        the worker that gets the answer finds it (a paused turn's end waits; no other does)."""
        if self.stop_reason == "paused":
            await self.tracer.book.drain()

    def _link_paused(self) -> None:
        lookup, self.paused_lookup = self.paused_lookup, None
        if lookup is None:
            return
        if not lookup.done():
            lookup.cancel()
            return
        found = None if lookup.cancelled() or lookup.exception() is not None else lookup.result()
        if found is None or (found.get("output") or {}).get("stop_reason") != "paused":
            return
        try:  # a client may have changed the stored span's trace id (PATCH /spans/{id})
            ids = int(found["trace_id"], 16), int(found["id"], 16)
        except (TypeError, ValueError):
            return
        paused = SpanContext(*ids, is_remote=True, trace_flags=TraceFlags(1))
        self.span.add_link(paused, {"turnwire.link": "resumes"})

    def fail(self, exc: BaseException) -> None:
        """The turn never started (refused, or its start failed)."""
        status = getattr(exc, "status", None)
        self.span.record_exception(exc)
        self.end("error", f"{status}" if isinstance(status, int) else type(exc).__qualname__)

    def _tool_called(self, event: ToolCall) -> None:
        name = event.name or "tool"
        attributes: dict[str, Any] = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name}
        if event.id:
            attributes["gen_ai.tool.call.id"] = event.id
        if self.tracer.capture_content and event.input is not None:
            attributes["gen_ai.tool.call.arguments"] = _json(event.input)
        span = self.tracer.tracer.start_span(
            f"execute_tool {name}",
            context=trace.set_span_in_context(self.span),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
        )
        old = self._tools.pop(event.id or "", None)
        if old is not None:
            self._end_tool(old)
        self._tools[event.id or ""] = span

    def _tool_answered(self, event: ToolResult) -> None:
        span = self._tools.pop(event.id or "", None)
        if span is None:
            return  # the result of a call made in an earlier turn (an approval answered)
        if self.tracer.capture_content and event.output is not None:
            span.set_attribute("gen_ai.tool.call.result", _json(event.output))
        if event.denied:
            span.set_attribute("turnwire.tool.denied", True)
        if event.is_error:
            span.set_attribute("error.type", "tool_error")
            span.set_status(Status(StatusCode.ERROR))
        self._end_tool(span)

    def _end_tool(self, span: Span) -> None:
        recording = span.is_recording()
        span.end()
        if recording:
            self.tracer.book.put(self.tenant, recorded_span(span, task_id=self.task_id))


def _start_lookup(book: SpanBook, tenant: str, session_id: str) -> asyncio.Task[Any] | None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return None
    return loop.create_task(book.last_turn_span(tenant, session_id))


def _json(value: Any) -> str:
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, default=str).decode()
    except TypeError:
        return str(value)
