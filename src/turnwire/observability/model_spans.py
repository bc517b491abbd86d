"""``chat {model}``: the span a model adapter opens around one model call, a child of the turn.

Free when tracing is off: ``chat_span`` reads one context variable and answers a no-op context
manager; nothing of OpenTelemetry is imported. When a turn is traced, its span sets the tracer
here for the agent's task (``TurnSpan.attach``), and the model span also names the provider and
model on the turn's span (``gen_ai.provider.name``, ``gen_ai.request.model``) where it has none.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

CURRENT_TRACER: ContextVar[Any] = ContextVar("turnwire_turn_tracer", default=None)


class ModelCall:
    """What an adapter tells the span of its call once the model answered."""

    __slots__ = ("span",)

    def __init__(self, span: Any = None) -> None:
        self.span = span

    def answered(
        self,
        *,
        model: str | None = None,
        input_tokens: int | None = None,
        output_tokens: int | None = None,
        finish_reason: str | None = None,
    ) -> None:
        span = self.span
        if span is None:
            return
        if model:
            span.set_attribute("gen_ai.response.model", model)
        if input_tokens is not None:
            span.set_attribute("gen_ai.usage.input_tokens", input_tokens)
        if output_tokens is not None:
            span.set_attribute("gen_ai.usage.output_tokens", output_tokens)
        if finish_reason:
            span.set_attribute("gen_ai.response.finish_reasons", [finish_reason])


_NOTHING = ModelCall()


@contextlib.contextmanager
def chat_span(provider: str, model: str) -> Iterator[ModelCall]:
    """Around one model call: ``with chat_span("openai", "gpt-4o") as call: ...; call.answered(...)``."""
    tracer = CURRENT_TRACER.get()
    if tracer is None:
        yield _NOTHING
        return
    from opentelemetry import trace

    turn = trace.get_current_span()
    if turn.is_recording() and not getattr(turn, "attributes", {}).get("gen_ai.request.model"):
        turn.set_attribute("gen_ai.provider.name", provider)
        turn.set_attribute("gen_ai.request.model", model)
    attributes = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": provider,
        "gen_ai.request.model": model,
    }
    # Not made current: an adapter's generator may be closed from another task, where a context
    # attached here could not be detached; a model call has no child spans of its own anyway.
    span = tracer.start_span(f"chat {model}", kind=trace.SpanKind.CLIENT, attributes=attributes)
    try:
        yield ModelCall(span)
    except (GeneratorExit, asyncio.CancelledError):
        span.set_attribute("turnwire.cancelled", True)  # the turn stopped mid-call: no model error
        raise
    except BaseException as exc:
        span.record_exception(exc)
        span.set_attribute("error.type", type(exc).__qualname__)
        span.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)))
        raise
    finally:
        span.end()
