"""The adapter: one ``Runner.run_streamed`` per turn, ``needs_approval`` interruptions as turnwire
approvals (see the package docstring)."""

from __future__ import annotations

import inspect
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from agents import Agent as SDKAgent
from agents import FunctionTool, ItemHelpers, Runner, RunState
from agents.exceptions import MaxTurnsExceeded
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall

from turnwire.agents.chat_history import DENIED_TEXT, arguments_json, to_chat_messages
from turnwire.agents.framework_errors import framework_failure
from turnwire.agents.model_ids import ModelIds
from turnwire.agents.openai_agents.events import RunEvents, call_of, result_of
from turnwire.agents.openai_agents.items import to_input_items
from turnwire.agents.tools import approval_request, result_text
from turnwire.model import Done, ErrorEvent, Event, Role, StopReason, ToolCall, ToolResult, Usage
from turnwire.runtime import Decision, TurnContext, user_turns

MAX_TURNS_CODE: Final = "max_steps_exceeded"


class OpenAIAgentsAgent:
    """A turnwire agent running an OpenAI Agents SDK ``agents.Agent`` (see ``openai_agents_agent``)."""

    def __init__(self, agent: SDKAgent[Any], *, context: Any = None, **run_options: Any) -> None:
        self.agent = agent
        self.context = context
        self.run_options = run_options

    def __call__(self, ctx: TurnContext) -> AsyncIterator[Event]:
        return self._run(ctx)

    async def _run(self, ctx: TurnContext | None) -> AsyncIterator[Event]:
        state: Any = None  # the paused run, while this generator is parked warm
        while ctx is not None:
            chat = to_chat_messages(ctx.messages)
            ids = ModelIds.of_chat(chat.messages)
            decided = ctx.decisions()
            announced = {b.id for b in chat.open_calls if b.id}
            denied: set[str] = set()
            prefix = str(user_turns(ctx.messages))
            run_input: Any
            outcome: list[Event] = []
            if chat.open_calls:
                asked = [b for b in chat.open_calls if (b.id or "") not in decided]
                if asked:  # replayed without an answer: ask again, run nothing
                    for block in asked:
                        yield approval_request(ToolCall(id=block.id, name=block.name, input=block.input))
                    ctx = yield Done(stop_reason=StopReason.PAUSED)
                    continue
                denied = {b.id or "" for b in chat.open_calls if not decided[b.id or ""].approved}
                if state is not None and _state_matches(state[1], ids, chat.open_calls):
                    run_input = _decide(state, ids, decided)  # warm: the SDK's own RunState
                else:  # cold: the decided calls run (or are denied) here, the run continues after them
                    items = to_input_items(ids.chat(chat.messages))
                    for block in chat.open_calls:
                        ran, said = await self._outcome(block, decided[block.id or ""], ids)
                        outcome.append(ran)
                        items.append(
                            {
                                "type": "function_call_output",
                                "call_id": ids.to_model(block.id or ""),
                                "output": said,
                            }
                        )
                    run_input = items
            else:
                run_input = to_input_items(ids.chat(chat.messages))
            counted = state[2] if state is not None and not isinstance(run_input, list) else (0, 0)
            state = None
            for event in outcome:
                yield event
            reader = RunEvents(prefix, ids, announced, denied, self.agent.name)
            reader.names.update({b.id: b.name for b in chat.open_calls if b.id})
            result = Runner.run_streamed(self.agent, run_input, context=self.context, **self.run_options)
            failed: BaseException | None = None
            try:
                async for streamed in result.stream_events():
                    for out in reader.feed(streamed):
                        yield out
            except Exception as exc:  # the model's, a tool's or the SDK's failure: report it
                failed = exc
            finally:
                if not result.is_complete:
                    result.cancel()  # a client that left: the model stream is closed
            for out in [*reader.close(), *reader.end_agents(), *_usage(result, counted)]:
                yield out
            if failed is not None:
                yield _failure(failed, self.agent.model)
                yield Done(stop_reason=StopReason.ERROR)
                return
            interruptions = list(result.interruptions or ())
            if not interruptions:
                yield Done(stop_reason=StopReason.END_TURN)
                return
            for item in interruptions:
                raw = item.raw_item
                call_id = ids.from_model(_field(raw, "call_id") or "")
                call = call_of(call_id, item.name, _field(raw, "arguments"))
                if call_id not in announced:
                    announced.add(call_id)
                    yield call
                yield approval_request(call)
            # The paused run's usage so far: a warm resume's RunState keeps counting from it, and
            # the resumed turn reports only its own model calls, as a cold one does.
            state = (result.to_state(), interruptions, _tokens(result))
            # Parked warm: the next turn's context arrives here; ``None`` ends this one.
            ctx = yield Done(stop_reason=StopReason.PAUSED)
            if ctx is not None and ctx.messages and ctx.messages[-1].role == Role.USER:
                state = None  # the user moved on without deciding: a fresh run

    async def _outcome(self, block: Any, decision: Decision, ids: ModelIds) -> tuple[ToolResult, str]:
        """A decided call's result, and what the model reads of it, made here on a cold resume as
        the SDK makes them on a warm one."""
        call_id = block.id or ""
        if not decision.approved:
            return result_of(call_id, block.name, None, denied=True), DENIED_TEXT
        tool = _find_tool(self.agent, block.name or "", set())
        if tool is None:
            missing = f"There is no tool named {block.name!r}."
            return ToolResult(id=call_id, name=block.name, output=missing, is_error=True), missing
        arguments = arguments_json(block.input)
        tool_ctx = ToolContext(
            context=self.context,
            tool_name=tool.name,
            tool_call_id=ids.to_model(call_id),
            tool_arguments=arguments,
        )
        try:
            value = tool.on_invoke_tool(tool_ctx, arguments)
            if inspect.isawaitable(value):
                value = await value
        except Exception as exc:  # the tool's own failure goes back to the model, as the SDK does
            failed = f"{type(exc).__name__}: {exc}"
            return ToolResult(id=call_id, name=block.name, output=failed, is_error=True), failed
        model_call = ResponseFunctionToolCall(
            type="function_call", call_id=ids.to_model(call_id), name=tool.name, arguments=arguments
        )
        said = ItemHelpers.tool_call_output_item(model_call, value)["output"]  # the SDK's own rendering
        text = said if isinstance(said, str) else result_text(said)
        return result_of(call_id, block.name, value, denied=False), text


def _field(raw: Any, name: str) -> Any:
    return raw.get(name) if isinstance(raw, dict) else getattr(raw, name, None)


def _state_matches(interruptions: list[Any], ids: ModelIds, open_calls: list[Any]) -> bool:
    pending = {ids.from_model(_field(i.raw_item, "call_id") or "") for i in interruptions}
    return pending == {b.id for b in open_calls}


def _decide(
    state: tuple[RunState[Any], list[Any], Any], ids: ModelIds, decided: Mapping[str, Decision]
) -> Any:
    run_state, interruptions, _ = state
    for item in interruptions:
        call_id = ids.from_model(_field(item.raw_item, "call_id") or "")
        if decided[call_id].approved:
            run_state.approve(item)
        else:
            run_state.reject(item, rejection_message=DENIED_TEXT)
    return run_state


def _find_tool(agent: Any, name: str, seen: set[int]) -> FunctionTool | None:
    """The function tool ``name`` of ``agent`` or of an agent it can hand off to."""
    if id(agent) in seen:
        return None
    seen.add(id(agent))
    for tool in getattr(agent, "tools", ()):
        if isinstance(tool, FunctionTool) and tool.name == name:
            return tool
    for handoff in getattr(agent, "handoffs", ()):
        target = handoff if isinstance(handoff, SDKAgent) else getattr(handoff, "agent", None)
        found = _find_tool(target, name, seen) if target is not None else None
        if found is not None:
            return found
    return None


def _tokens(result: Any) -> tuple[int, int]:
    usage = getattr(getattr(result, "context_wrapper", None), "usage", None)
    if usage is None:
        return (0, 0)
    return (usage.input_tokens or 0, usage.output_tokens or 0)


def _usage(result: Any, counted: tuple[int, int]) -> list[Event]:
    """This turn's usage: the run's, less what the paused run it resumes had ``counted``."""
    tokens_in, tokens_out = _tokens(result)
    tokens_in, tokens_out = tokens_in - counted[0], tokens_out - counted[1]
    if tokens_in <= 0 and tokens_out <= 0:
        return []
    return [Usage(input=tokens_in, output=tokens_out, total=tokens_in + tokens_out)]


def _failure(exc: BaseException, model: Any) -> ErrorEvent:
    if isinstance(exc, MaxTurnsExceeded):
        return ErrorEvent(message=f"The agent stopped: {exc}", code=MAX_TURNS_CODE)
    name = model if isinstance(model, str) else getattr(model, "model", None)  # a Model object's name
    return framework_failure(exc, "OpenAI Agents SDK", str(name) if name else None)


def openai_agents_agent(
    agent: SDKAgent[Any], *, context: Any = None, **run_options: Any
) -> OpenAIAgentsAgent:
    """Serve ``agent`` (an OpenAI Agents SDK ``agents.Agent``) as a turnwire agent.

    ``context``: the run context every run gets (``RunContextWrapper.context``); ``run_options``
    (``max_turns``, ``run_config``, ``hooks``...) go to ``Runner.run_streamed`` as they are.
    """
    return OpenAIAgentsAgent(agent, context=context, **run_options)
