"""An agent on any OpenAI-compatible Chat Completions server, with Python function tools.

Each turn: the history becomes Chat Completions messages, the model is streamed, its tool calls run,
and the model is called again with the results until it answers without calls (or ``max_steps``
calls were made). A tool marked ``requires_approval`` pauses the turn with an approval request; the
resumed turn, warm or cold, starts from the history that carries the decision and rebuilds
everything from it, so both paths give the same events.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, Final

import openai

from turnwire.agents.chat_history import (
    DENIED_TEXT,
    arguments_json,
    to_chat_messages,
    tool_message,
)
from turnwire.agents.model_ids import ModelIds
from turnwire.agents.openai_chat.errors import MAX_STEPS_CODE, incomplete, model_error
from turnwire.agents.openai_chat.stream import FINISH_REASONS, StepReader, usage_event
from turnwire.agents.tools import Tool, ToolInputError, approval_request, as_tools, result_text
from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    StopReason,
    ToolCall,
    ToolResult,
)
from turnwire.observability.model_spans import chat_span
from turnwire.runtime import Decision, TurnContext, tool_call_count, user_turns

DEFAULT_MAX_STEPS: Final = 10


async def _run_tool(tool: Tool | None, call: ToolCall) -> ToolResult:
    if tool is None:
        return ToolResult(
            id=call.id, name=call.name, output=f"There is no tool named {call.name!r}.", is_error=True
        )
    try:
        value = await tool.call(call.input)
    except ToolInputError as exc:
        return ToolResult(id=call.id, name=call.name, output=str(exc), is_error=True)
    except Exception as exc:  # the tool's own failure goes back to the model, which may recover
        return ToolResult(id=call.id, name=call.name, output=f"{type(exc).__name__}: {exc}", is_error=True)
    if isinstance(value, str):
        return ToolResult(id=call.id, name=call.name, output=value)
    data = value.model_dump(mode="json") if hasattr(value, "model_dump") else value
    return ToolResult(id=call.id, name=call.name, output=result_text(data), data=data)


class OpenAIAgent:
    """A turnwire agent backed by a Chat Completions model (see ``openai_agent``)."""

    def __init__(
        self,
        model: str,
        tools: Iterable[Tool | Callable[..., Any]] = (),
        *,
        system: str | None = None,
        client: openai.AsyncOpenAI | None = None,
        max_steps: int = DEFAULT_MAX_STEPS,
        settings: Mapping[str, Any] | None = None,
    ) -> None:
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        self.model = model
        self.tools = as_tools(tools)
        self.system = system
        self.max_steps = max_steps
        self.settings = dict(settings or {})
        self._client = client
        self._definitions = [tool.definition() for tool in self.tools.values()]

    @property
    def client(self) -> openai.AsyncOpenAI:
        """The SDK client; made on first use from ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``."""
        if self._client is None:
            self._client = openai.AsyncOpenAI()
        return self._client

    def __call__(self, ctx: TurnContext) -> AsyncIterator[Event]:
        # The generator itself, so a warm session's ``asend`` reaches the pause below.
        return self._run(ctx)

    async def _calls_outcomes(
        self, calls: list[ToolCall], decided: Mapping[str, Decision]
    ) -> tuple[list[ToolResult], list[ToolCall]]:
        """Run what may run (concurrently), deny what was denied; the calls still waiting for approval."""
        runs: list[Any] = []
        gated: list[ToolCall] = []
        for call in calls:
            tool = self.tools.get(call.name or "")
            if tool is not None and tool.requires_approval:
                decision = decided.get(call.id or "")
                if decision is None:
                    gated.append(call)
                    continue
                if not decision.approved:
                    runs.append(_denied(call))
                    continue
            runs.append(_run_tool(tool, call))
        return list(await asyncio.gather(*runs)), gated

    async def _run(self, ctx: TurnContext | None) -> AsyncIterator[Event]:
        while ctx is not None:
            chat = to_chat_messages(ctx.messages, self.system)
            messages = chat.messages
            ids = ModelIds.of_chat(messages)
            decided = ctx.decisions()
            prefix = str(user_turns(ctx.messages))
            made = tool_call_count(ctx.messages)
            counts = (0, 0)
            usages: list[Any] = []
            gated: list[ToolCall] = []

            # Calls the history left open (a paused step): decided ones run or are denied now.
            if chat.open_calls:
                opened = [ToolCall(id=b.id, name=b.name, input=b.input) for b in chat.open_calls]
                results, gated = await self._calls_outcomes(opened, decided)
                for result in results:
                    yield result
                    messages.append(tool_message(result.id or "", result.output))

            for _step in range(self.max_steps):
                if gated:
                    break
                reader = StepReader(prefix, *counts)
                try:
                    with chat_span("openai", self.model) as model_call:  # a span when the turn is traced
                        stream = await self.client.chat.completions.create(
                            **self._request(ids.chat(messages))
                        )
                        try:
                            async for chunk in stream:
                                for event in reader.feed(chunk):
                                    yield event
                        finally:
                            await stream.close()  # on error or client disconnect too: frees the connection
                        model_call.answered(
                            input_tokens=getattr(reader.usage, "prompt_tokens", None),
                            output_tokens=getattr(reader.usage, "completion_tokens", None),
                            finish_reason=reader.finish_reason,
                        )
                except Exception as exc:
                    if reader.usage is not None:
                        usages.append(reader.usage)
                    for event in [*reader.close(), *_ending(usages, model_error(exc, self.model))]:
                        yield event
                    return
                for event in reader.close():
                    yield event
                counts = reader.counts
                if reader.usage is not None:
                    usages.append(reader.usage)
                if reader.finish_reason is None:
                    for event in _ending(usages, incomplete(self.model)):
                        yield event
                    return

                def next_id() -> str:
                    nonlocal made
                    made += 1
                    return f"call_{made}"

                calls = [replace(c, id=ids.from_model(c.id or "")) for c in reader.tool_calls(next_id)]
                if not calls:
                    reason = reader.finish_reason
                    for event in _ending(usages, Done(stop_reason=FINISH_REASONS.get(reason, reason))):
                        yield event
                    return
                for call in calls:
                    yield call
                messages.append(_assistant(reader.text, calls))
                results, gated = await self._calls_outcomes(calls, {})
                for result in results:
                    yield result
                    messages.append(tool_message(result.id or "", result.output))
            else:
                if not gated:
                    error = ErrorEvent(
                        message=f"The agent stopped after {self.max_steps} model calls without an answer.",
                        code=MAX_STEPS_CODE,
                        detail={"maxSteps": self.max_steps},
                    )
                    for event in _ending(usages, error):
                        yield event
                    return

            for event in _ending(usages, *(approval_request(call) for call in gated)):
                yield event
            # Parked warm: the next turn's context arrives here; run cold, ``None`` ends this one.
            ctx = yield Done(stop_reason=StopReason.PAUSED)

    def _request(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        request: dict[str, Any] = {
            **self.settings,
            "model": self.model,
            "messages": messages,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if self._definitions:
            request["tools"] = self._definitions
        return request


def _ending(usages: list[Any], *tail: Event) -> list[Event]:
    """The turn's one usage event (the sum of its model calls), then ``tail``; an error event gets
    its ``Done(error)``."""
    out: list[Event] = []
    if (usage := usage_event(usages)) is not None:
        out.append(usage)
    out.extend(tail)
    if tail and isinstance(tail[-1], ErrorEvent):
        out.append(Done(stop_reason=StopReason.ERROR))
    return out


async def _denied(call: ToolCall) -> ToolResult:
    return ToolResult(id=call.id, name=call.name, output=DENIED_TEXT, is_error=True, denied=True)


def _assistant(text: list[str], calls: list[ToolCall]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "".join(text) or None,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name or "", "arguments": arguments_json(call.input)},
            }
            for call in calls
        ],
    }


def openai_agent(
    model: str,
    tools: Iterable[Tool | Callable[..., Any]] = (),
    *,
    system: str | None = None,
    client: openai.AsyncOpenAI | None = None,
    max_steps: int = DEFAULT_MAX_STEPS,
    settings: Mapping[str, Any] | None = None,
    base_url: str | None = None,
    api_key: str | None = None,
) -> OpenAIAgent:
    """An agent on ``model`` served by any OpenAI-compatible Chat Completions endpoint.

    ``tools``: functions (or ``tool()`` objects; ``@tool(requires_approval=True)`` gates a tool behind
    the user's approval). ``system``: the system prompt. ``client``: an ``openai.AsyncOpenAI`` (its
    ``max_retries`` and timeouts apply); else one is made from ``base_url`` / ``api_key`` or the SDK's
    ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``. ``max_steps``: model calls per turn before it stops with
    an error. ``settings``: extra ``chat.completions.create`` arguments (``temperature``, ...).
    """
    if client is None and (base_url is not None or api_key is not None):
        key = api_key or os.environ.get("OPENAI_API_KEY") or "unused"  # local servers take any key
        client = openai.AsyncOpenAI(base_url=base_url, api_key=key)
    return OpenAIAgent(model, tools, system=system, client=client, max_steps=max_steps, settings=settings)
