"""A ``pydantic_ai.Agent`` as a turnwire agent (``pip install 'turnwire[pydantic-ai]'``).

Each turn runs the pydantic-ai agent with the conversation as its message history and streams its
events as canonical ones: text and thinking parts, function tool calls and their results, a
structured final result (as a ``result`` data event), usage. A tool declared with
``requires_approval=True`` ends the pydantic-ai run with deferred tool requests; each becomes a
turnwire approval and the turn pauses. The resumed turn, warm or cold, rebuilds the history with the
call still open and hands the decisions back as ``DeferredToolResults``.

Any model pydantic-ai supports works: the model is the agent's business, not turnwire's.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any, Final

import orjson
from pydantic_ai import Agent as PydanticAgent
from pydantic_ai import DeferredToolRequests, DeferredToolResults, ToolDenied
from pydantic_ai import messages as pm

from turnwire.agents.chat_history import DENIED_TEXT, to_chat_messages
from turnwire.agents.tools import approval_request, result_text
from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    ImageBlock,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    ReasoningBlock,
    Role,
    StopReason,
    TextBlock,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, user_turns

FAILURE_CODE: Final = "model_error"
USAGE_LIMIT_CODE: Final = "usage_limit_exceeded"


def _args(part: Any) -> Any:
    try:
        return part.args_as_dict()
    except Exception:  # arguments that are not a JSON object: pass the raw text on
        return part.args


def to_model_messages(chat: list[dict[str, Any]]) -> list[pm.ModelMessage]:
    """Chat Completions messages (``chat_history.to_chat_messages``) as pydantic-ai messages."""
    out: list[pm.ModelMessage] = []
    names: dict[str, str] = {}
    returns: list[pm.ModelRequestPart] = []

    def flush_returns() -> None:
        if returns:
            out.append(pm.ModelRequest(parts=list(returns)))
            returns.clear()

    for message in chat:
        role = message["role"]
        if role == "tool":
            call_id = message["tool_call_id"]
            returns.append(
                pm.ToolReturnPart(
                    tool_name=names.get(call_id, ""), content=message["content"], tool_call_id=call_id
                )
            )
            continue
        flush_returns()
        if role == "assistant":
            parts: list[pm.ModelResponsePart] = []
            if message.get("content"):
                parts.append(pm.TextPart(content=message["content"]))
            for call in message.get("tool_calls", ()):
                names[call["id"]] = call["function"]["name"]
                parts.append(
                    pm.ToolCallPart(
                        tool_name=call["function"]["name"],
                        args=call["function"]["arguments"],
                        tool_call_id=call["id"],
                    )
                )
            out.append(pm.ModelResponse(parts=parts))
        elif role in ("system", "developer"):
            out.append(pm.ModelRequest(parts=[pm.SystemPromptPart(content=_text(message["content"]))]))
        else:
            out.append(pm.ModelRequest(parts=[pm.UserPromptPart(content=_user_content(message["content"]))]))
    flush_returns()
    return out


def from_model_messages(messages: Sequence[pm.ModelMessage]) -> list[Message]:
    """pydantic-ai messages (e.g. a saved ``result.all_messages()``) as the canonical history.

    Requests give system, user and ``tool`` messages (tool returns and retry prompts as tool results);
    each response gives one assistant message of text, reasoning and tool calls.
    """
    out: list[Message] = []
    for message in messages:
        if isinstance(message, pm.ModelResponse):
            blocks: list[Any] = []
            for part in message.parts:
                if isinstance(part, pm.TextPart):
                    blocks.append(TextBlock(part.content))
                elif isinstance(part, pm.ThinkingPart):
                    blocks.append(ReasoningBlock(text=part.content))
                elif isinstance(part, pm.ToolCallPart):
                    blocks.append(ToolCallBlock(id=part.tool_call_id, name=part.tool_name, input=_args(part)))
            out.append(Message(role=Role.ASSISTANT, content=blocks))
            continue
        for part in message.parts:
            if isinstance(part, pm.SystemPromptPart):
                out.append(Message(role=Role.SYSTEM, content=[TextBlock(part.content)]))
            elif isinstance(part, pm.UserPromptPart):
                out.append(Message(role=Role.USER, content=_user_blocks(part.content)))
            elif isinstance(part, pm.ToolReturnPart | pm.RetryPromptPart) and part.tool_call_id:
                result = _tool_result(part)
                block = ToolResultBlock(
                    id=result.id, name=result.name, output=result.output, is_error=result.is_error
                )
                out.append(Message(role=Role.TOOL, content=[block]))
    return out


def _user_blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [TextBlock(content)]
    blocks: list[Any] = []
    for item in content:
        if isinstance(item, str):
            blocks.append(TextBlock(item))
        elif isinstance(item, pm.ImageUrl):
            blocks.append(ImageBlock(uri=item.url))
    return blocks


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if isinstance(p, dict))


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    parts: list[Any] = []
    for part in content:
        if part.get("type") == "text":
            parts.append(part["text"])
        elif part.get("type") == "image_url":
            parts.append(pm.ImageUrl(url=part["image_url"]["url"]))
    return parts


class _Parts:
    """Text and thinking parts by pydantic-ai part index, with turnwire ids ``msg_<turn>_<k>``."""

    __slots__ = ("_messages", "_open", "_prefix", "_thoughts")

    def __init__(self, prefix: str) -> None:
        self._prefix = prefix
        self._messages = 0
        self._thoughts = 0
        self._open: dict[int, tuple[str, str]] = {}  # index → (kind, id)

    def start(self, index: int, part: Any) -> list[Event]:
        out = self.end(index)
        if isinstance(part, pm.TextPart):
            self._messages += 1
            part_id = f"msg_{self._prefix}_{self._messages}"
            self._open[index] = ("text", part_id)
            out.append(MessageStart(id=part_id))
            if part.content:
                out.append(MessageDelta(id=part_id, delta=part.content))
        elif isinstance(part, pm.ThinkingPart):
            self._thoughts += 1
            part_id = f"thought_{self._prefix}_{self._thoughts}"
            self._open[index] = ("thought", part_id)
            out.append(ThoughtStart(id=part_id))
            if part.content:
                out.append(ThoughtDelta(id=part_id, delta=part.content))
        return out

    def delta(self, index: int, delta: Any) -> list[Event]:
        opened = self._open.get(index)
        if opened is None:
            return []
        kind, part_id = opened
        if kind == "text" and isinstance(delta, pm.TextPartDelta) and delta.content_delta:
            return [MessageDelta(id=part_id, delta=delta.content_delta)]
        if kind == "thought" and isinstance(delta, pm.ThinkingPartDelta) and delta.content_delta:
            return [ThoughtDelta(id=part_id, delta=delta.content_delta)]
        return []

    def end(self, index: int) -> list[Event]:
        opened = self._open.pop(index, None)
        if opened is None:
            return []
        kind, part_id = opened
        return [MessageEnd(id=part_id) if kind == "text" else ThoughtEnd(id=part_id)]

    def close(self) -> list[Event]:
        out: list[Event] = []
        for index in list(self._open):
            out += self.end(index)
        return out


def _tool_result(part: Any) -> ToolResult:
    """A ``ToolReturnPart`` (or a ``RetryPromptPart``: the tool asked the model to retry) as a result."""
    call_id, name = part.tool_call_id, part.tool_name
    if isinstance(part, pm.RetryPromptPart):
        return ToolResult(id=call_id, name=name, output=part.model_response(), is_error=True)
    outcome = getattr(part, "outcome", None)
    if outcome == "denied":
        return ToolResult(id=call_id, name=name, output=DENIED_TEXT, is_error=True, denied=True)
    content = part.content
    if isinstance(content, str):
        return ToolResult(
            id=call_id, name=name, output=content, is_error=True if outcome == "failed" else None
        )
    data = orjson.loads(orjson.dumps(content, default=_plain))
    return ToolResult(id=call_id, name=name, output=result_text(data), data=data)


def _plain(value: Any) -> Any:
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json")
    return str(value)


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    tokens_in = getattr(usage, "input_tokens", None) or 0
    tokens_out = getattr(usage, "output_tokens", None) or 0
    cost = getattr(usage, "cost", None)
    return Usage(
        input=tokens_in,
        output=tokens_out,
        total=tokens_in + tokens_out,
        cost=float(cost) if isinstance(cost, int | float) and cost else None,
    )


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
            history = to_model_messages(chat.messages)
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
                        approvals[block.id or ""] = True if decision.approved else ToolDenied(DENIED_TEXT)
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
            async with contextlib.aclosing(self._stream(ctx, prompt, history, deferred, known)) as stream:
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
    ) -> AsyncIterator[Event]:
        """One pydantic-ai run as events; ``announced``: call ids not to announce again (pydantic-ai
        repeats the call event of a resumed deferred call, a client would reset its tool part)."""
        parts = _Parts(str(user_turns(ctx.messages)))
        result: Any = None
        handle = self.agent.run_stream_events(
            prompt,
            output_type=self._output_type,
            message_history=history,
            deferred_tool_results=deferred,
            deps=self.deps,
            **self.run_options,
        )
        try:
            async with _opened(handle) as events:
                async for event in events:
                    if isinstance(event, pm.PartStartEvent):
                        for out in parts.start(event.index, event.part):
                            yield out
                    elif isinstance(event, pm.PartDeltaEvent):
                        for out in parts.delta(event.index, event.delta):
                            yield out
                    elif isinstance(event, pm.PartEndEvent):
                        for out in parts.end(event.index):
                            yield out
                    elif isinstance(event, pm.FunctionToolCallEvent):
                        call = event.part
                        if call.tool_call_id not in announced:
                            announced.add(call.tool_call_id)
                            yield ToolCall(id=call.tool_call_id, name=call.tool_name, input=_args(call))
                    elif isinstance(event, pm.FunctionToolResultEvent):
                        yield _tool_result(getattr(event, "part", None) or getattr(event, "result", None))
                    elif type(event).__name__ == "AgentRunResultEvent":
                        result = event.result  # type: ignore[union-attr]
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
        usage = _usage(usage)
        if usage is not None:
            yield usage
        output = result.output
        if isinstance(output, DeferredToolRequests):
            for call in output.approvals:
                request = ToolCall(id=call.tool_call_id, name=call.tool_name, input=_args(call))
                if call.tool_call_id not in announced:
                    yield request
                yield approval_request(request)
            yield Done(stop_reason=StopReason.PAUSED)
            return
        if not isinstance(output, str):  # a structured result: the text parts did not carry it
            yield DataEvent(name="result", data=orjson.loads(orjson.dumps(output, default=_plain)))
        yield Done(stop_reason=StopReason.END_TURN)


@contextlib.asynccontextmanager
async def _opened(handle: Any) -> AsyncIterator[Any]:
    """The run's events: ``run_stream_events`` is an async context manager since pydantic-ai 2, a
    bare async iterator before; either way the run is closed when the turn ends or is cancelled."""
    if hasattr(handle, "__aenter__"):
        async with handle as events:
            yield events
        return
    try:
        yield handle
    finally:
        close = getattr(handle, "aclose", None)
        if close is not None:
            await close()


def _failure(exc: Exception) -> ErrorEvent:
    name = type(exc).__name__
    status = getattr(exc, "status_code", None)
    detail: dict[str, Any] = {"exception": name}
    if isinstance(status, int):
        detail["status"] = status
    code = USAGE_LIMIT_CODE if name == "UsageLimitExceeded" else FAILURE_CODE
    return ErrorEvent(message=f"The pydantic-ai agent failed: {name}: {exc}", code=code, detail=detail)


def pydantic_ai_agent(
    agent: PydanticAgent[Any, Any], *, deps: Any = None, **run_options: Any
) -> PydanticAIAgent:
    """Serve ``agent`` (a ``pydantic_ai.Agent``) as a turnwire agent.

    ``deps`` is passed to every run; ``run_options`` (``model_settings``, ``usage_limits``, ``model``...)
    go to ``run_stream_events`` as they are.
    """
    return PydanticAIAgent(agent, deps=deps, **run_options)
