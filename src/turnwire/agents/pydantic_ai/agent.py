"""The adapter: one pydantic-ai run per turn, its events as canonical ones, deferred approvals as
turnwire approvals (see the package docstring)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import replace
from typing import Any, Final

import orjson
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai import messages as pm

from turnwire.agents.chat_history import DENIED_TEXT, to_chat_messages
from turnwire.agents.model_errors import status_code
from turnwire.agents.model_ids import ModelIds
from turnwire.agents.pydantic_ai.events import Parts, args_of, plain, tool_result, usage_of
from turnwire.agents.pydantic_ai.messages import to_model_messages
from turnwire.agents.tools import approval_request
from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    InteractionKind,
    InteractionRequest,
    StopReason,
    ToolCall,
)
from turnwire.runtime import TurnContext, user_turns

FAILURE_CODE: Final = "model_error"
USAGE_LIMIT_CODE: Final = "usage_limit_exceeded"


class PydanticAIAgent:
    """A turnwire agent running a ``pydantic_ai.Agent`` (see ``pydantic_ai_agent``)."""

    def __init__(self, agent: PydanticAgent[Any, Any], *, deps: Any = None, **run_options: Any) -> None:
        self.agent = agent
        self.deps = deps
        self.run_options = run_options
        output = agent.output_type
        specs = list(output) if isinstance(output, Sequence) and not isinstance(output, str) else [output]
        # A run must be able to end with deferred requests, or an approval tool makes it fail.
        self._output_type = specs if DeferredToolRequests in specs else [*specs, DeferredToolRequests]

    def __call__(self, ctx: TurnContext) -> AsyncIterator[Event]:
        return self._run(ctx)

    async def _run(self, ctx: TurnContext | None) -> AsyncIterator[Event]:
        while ctx is not None:
            chat = to_chat_messages(ctx.messages)
            ids = ModelIds.of_chat(chat.messages)
            history = to_model_messages(ids.chat(chat.messages))
            statics = tuple(getattr(self.agent, "_system_prompts", ()))
            if history and statics:  # pydantic-ai only adds them to an empty history
                history.insert(0, pm.ModelRequest(parts=[pm.SystemPromptPart(content=s) for s in statics]))
            prompt: Any = None
            deferred: DeferredToolResults | None = None
            if chat.open_calls:
                decided = ctx.decisions()
                approvals: dict[str, Any] = {}
                asked: list[ToolCall] = []
                for block in chat.open_calls:
                    decision = decided.get(block.id or "")
                    if decision is None:
                        asked.append(ToolCall(id=block.id, name=block.name, input=block.input))
                    else:
                        approvals[ids.to_model(block.id or "")] = (
                            True if decision.approved else ToolDenied(DENIED_TEXT)
                        )
                if asked:  # replayed without an answer: ask again, run nothing
                    for call in asked:
                        yield approval_request(call)
                    ctx = yield Done(stop_reason=StopReason.PAUSED)
                    continue
                deferred = DeferredToolResults(approvals=approvals)
            elif history and isinstance(history[-1], pm.ModelRequest):
                last = history[-1]
                if len(last.parts) == 1 and isinstance(last.parts[0], pm.UserPromptPart):
                    history.pop()
                    prompt = last.parts[0].content
            paused = False
            known = {b.id for b in chat.open_calls if b.id}  # announced by the paused turn already
            async with contextlib.aclosing(
                self._stream(ctx, prompt, history, deferred, known, ids)
            ) as stream:
                async for event in stream:
                    if isinstance(event, Done) and event.stop_reason == StopReason.PAUSED:
                        paused = True
                        break
                    yield event
            if not paused:
                return
            # Parked warm: the next turn's context arrives here; run cold, ``None`` ends this one.
            ctx = yield Done(stop_reason=StopReason.PAUSED)

    async def _stream(
        self,
        ctx: TurnContext,
        prompt: Any,
        history: list[pm.ModelMessage],
        deferred: DeferredToolResults | None,
        announced: set[str],
        ids: ModelIds,
    ) -> AsyncGenerator[Event, None]:
        """One pydantic-ai run as events; ``announced``: call ids not to announce again (pydantic-ai
        repeats the call event of a resumed deferred call, a client would reset its tool part);
        ``ids``: the model's names of the history's call ids."""
        parts = Parts(str(user_turns(ctx.messages)), ids.from_model)
        result: Any = None
        # ``iter`` with each node streamed here, not ``run_stream_events``: that one runs the agent
        # in a task of its own and hands every event over a zero-buffer memory stream, two task
        # switches an event (a quarter of a 100-delta turn's CPU: bench/experiments/pydantic_ai_drive.py).
        try:
            opened: Any = self.agent.iter(
                prompt,
                output_type=self._output_type,
                message_history=history,
                deferred_tool_results=deferred,
                deps=self.deps,
                **self.run_options,
            )
            async with opened as run:
                async for node in run:
                    # The model's response and the tools' calls and results stream; other nodes
                    # (the prompt, the end) carry no events.
                    if not (
                        PydanticAgent.is_model_request_node(node) or PydanticAgent.is_call_tools_node(node)
                    ):
                        continue
                    streamed: Any = node.stream(run.ctx)
                    async with streamed as stream:
                        async for event in stream:
                            for out in self._events(event, parts, ids, announced):
                                yield out
                result = run.result
        except Exception as exc:  # the model's or a tool's failure: report it, end the turn
            for out in parts.close():
                yield out
            yield _failure(exc)
            yield Done(stop_reason=StopReason.ERROR)
            return
        for out in parts.close():
            yield out
        if result is None:
            yield Done(stop_reason=StopReason.END_TURN)
            return
        usage = result.usage  # a property since pydantic-ai 2, a method before
        if not hasattr(usage, "input_tokens") and callable(usage):
            usage = usage()
        usage = usage_of(usage)
        if usage is not None:
            yield usage
        output = result.output
        if isinstance(output, DeferredToolRequests):
            for call in output.approvals:
                call_id = ids.from_model(call.tool_call_id)
                request = ToolCall(id=call_id, name=call.tool_name, input=args_of(call))
                if call_id not in announced:
                    yield request
                yield approval_request(request)
            for call in output.calls:  # external tools: the client runs them and sends the output
                call_id = ids.from_model(call.tool_call_id)
                request = ToolCall(id=call_id, name=call.tool_name, input=args_of(call))
                if call_id not in announced:
                    yield request
                yield InteractionRequest(
                    id=f"tool_{call_id}",
                    kind=InteractionKind.CLIENT_TOOL,
                    payload={
                        "toolCallId": call_id,
                        "toolName": call.tool_name,
                        "input": request.input,
                    },
                )
            yield Done(stop_reason=StopReason.PAUSED)
            return
        if not isinstance(output, str):  # a structured result: the text parts did not carry it
            yield DataEvent(name="result", data=orjson.loads(orjson.dumps(output, default=plain)))
        yield Done(stop_reason=StopReason.END_TURN)

    @staticmethod
    def _events(event: Any, parts: Parts, ids: ModelIds, announced: set[str]) -> Sequence[Event]:
        """One pydantic-ai stream event as canonical ones."""
        if isinstance(event, pm.PartDeltaEvent):
            return parts.delta(event.index, event.delta)
        if isinstance(event, pm.PartStartEvent):
            return parts.start(event.index, event.part)
        if isinstance(event, pm.PartEndEvent):
            return parts.end(event.index)
        if isinstance(event, pm.FunctionToolCallEvent):
            call = event.part
            call_id = ids.from_model(call.tool_call_id)
            if call_id in announced:
                return ()
            announced.add(call_id)
            return (ToolCall(id=call_id, name=call.tool_name, input=args_of(call)),)
        if isinstance(event, pm.FunctionToolResultEvent):
            done = tool_result(getattr(event, "part", None) or getattr(event, "result", None))
            return (replace(done, id=ids.from_model(done.id or "")),)
        return ()


def _failure(exc: Exception) -> ErrorEvent:
    """An exception from the run: the model server's HTTP status gives the same codes as ``openai_agent``."""
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    detail: dict[str, Any] = {"exception": name}
    code = USAGE_LIMIT_CODE if name == "UsageLimitExceeded" else FAILURE_CODE
    if isinstance(status, int):
        detail["status"] = status
        code = status_code(status)
    retry_after = getattr(exc, "retry_after", None)  # pydantic-ai 2 reads the provider's header
    if isinstance(retry_after, int | float):
        detail["retryAfter"] = retry_after
    return ErrorEvent(message=f"The pydantic-ai agent failed: {name}: {exc}", code=code, detail=detail)


def pydantic_ai_agent(
    agent: PydanticAgent[Any, Any], *, deps: Any = None, **run_options: Any
) -> PydanticAIAgent:
    """Serve ``agent`` (a ``pydantic_ai.Agent``) as a turnwire agent.

    ``deps`` is passed to every run; ``run_options`` (``model_settings``, ``usage_limits``, ``model``...)
    go to ``agent.iter`` as they are.
    """
    return PydanticAIAgent(agent, deps=deps, **run_options)
