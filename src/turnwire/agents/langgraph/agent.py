"""The adapter: one ``astream`` of the graph per turn, ``interrupt()`` as a paused turn (see the
package docstring)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any, Final

from langchain_core.messages import RemoveMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.types import Command

from turnwire.agents.chat_history import to_chat_messages
from turnwire.agents.framework_errors import framework_failure
from turnwire.agents.langgraph.events import GraphEvents
from turnwire.agents.langgraph.interrupts import Pending, pending
from turnwire.agents.langgraph.messages import to_langchain
from turnwire.agents.model_ids import ModelIds
from turnwire.agents.tools import approval_request
from turnwire.model import Done, ErrorEvent, Event, Role, StopReason, ToolCall
from turnwire.runtime import TurnContext, user_turns

STREAM_MODES: Final = ("messages", "updates", "custom")
STATE_LOST_CODE: Final = "langgraph_state_lost"
MEMORY: Final = "memory"


class LangGraphAgent:
    """A turnwire agent running a compiled LangGraph graph (see ``langgraph_agent``)."""

    def __init__(
        self, graph: Any, *, checkpointer: Any = MEMORY, config: Mapping[str, Any] | None = None
    ) -> None:
        if checkpointer == MEMORY:
            if graph.checkpointer is None:  # interrupts need one; an in-process one by default
                graph = graph.copy(update={"checkpointer": InMemorySaver()})
        elif checkpointer is not None:
            graph = graph.copy(update={"checkpointer": checkpointer})
        self.graph = graph
        self.config = dict(config or {})

    def __call__(self, ctx: TurnContext) -> AsyncIterator[Event]:
        return self._run(ctx)

    async def _run(self, ctx: TurnContext | None) -> AsyncIterator[Event]:
        while ctx is not None:
            paused = False
            async with contextlib.aclosing(self._turn(ctx)) as events:
                async for event in events:
                    if isinstance(event, Done) and event.stop_reason == StopReason.PAUSED:
                        paused = True
                        break
                    yield event
            if not paused:
                return
            # Parked warm: the next turn's context arrives here and runs like a cold one (the
            # graph's checkpoint holds the paused state either way); ``None`` ends this one.
            ctx = yield Done(stop_reason=StopReason.PAUSED)

    def _config(self, ctx: TurnContext) -> dict[str, Any]:
        configurable = {**self.config.get("configurable", {}), "thread_id": self.thread_id(ctx)}
        return {**self.config, "configurable": configurable}

    @staticmethod
    def thread_id(ctx: TurnContext) -> str:
        """The checkpointer's thread of a turn: its turnwire session (a turn without one: its own)."""
        return ctx.session_id or f"turn-{ctx.trace_id}"

    async def _turn(self, ctx: TurnContext) -> AsyncGenerator[Event, None]:
        config = self._config(ctx)
        chat = to_chat_messages(ctx.messages)
        ids = ModelIds.of_chat(chat.messages)
        snapshot = await self.graph.aget_state(config) if self.graph.checkpointer is not None else None
        waiting = [pending(i, chat.open_calls) for i in (snapshot.interrupts if snapshot else ())]
        announced = {b.id for b in chat.open_calls if b.id}
        denied: set[str] = set()
        decided = ctx.decisions()
        moved_on = bool(ctx.messages) and ctx.messages[-1].role == Role.USER
        graph_input: Any = None
        if waiting:
            values: dict[str, Any] = {}
            ask: list[Pending] = []
            for wait in waiting:
                if not wait.calls:
                    if moved_on:  # the next user message answers the question
                        values[wait.interrupt_id] = ctx.last_user_text()
                    else:
                        ask.append(wait)
                elif all((c.id or "") in decided for c in wait.calls):
                    values[wait.interrupt_id] = wait.resume_value(decided)
                    denied |= {c.id or "" for c in wait.calls if not decided[c.id or ""].approved}
                elif not moved_on:
                    ask.append(wait)
            if ask:  # replayed without an answer: ask again, run nothing
                for out in _asking(ask, announced):
                    yield out
                yield Done(stop_reason=StopReason.PAUSED)
                return
            if len(values) == len(waiting):
                only = len(values) == 1
                graph_input = Command(resume=next(iter(values.values())) if only else values)
        if graph_input is None:
            if chat.open_calls and any((c.id or "") in decided for c in chat.open_calls):
                yield ErrorEvent(
                    message="The graph's paused state is not in its checkpointer (another process, or a "
                    "restart, with the in-memory default): give the graph a persistent checkpointer.",
                    code=STATE_LOST_CODE,
                    detail={"threadId": config["configurable"]["thread_id"]},
                )
                yield Done(stop_reason=StopReason.ERROR)
                return
            messages: list[Any] = to_langchain(ids.chat(chat.messages))
            if snapshot is not None and snapshot.values and snapshot.values.get("messages"):
                # turnwire's conversation is the truth: the thread's own copy is replaced by it
                messages.insert(0, RemoveMessage(id=REMOVE_ALL_MESSAGES))
            graph_input = {"messages": messages}

        reader = GraphEvents(str(user_turns(ctx.messages)), ids, announced, denied)
        try:
            stream = self.graph.astream(graph_input, config, stream_mode=list(STREAM_MODES))
            async with contextlib.aclosing(stream):
                async for mode, chunk in stream:
                    for out in reader.feed(mode, chunk):
                        yield out
        except Exception as exc:  # the graph's, a model's or a tool's failure: report it, end the turn
            for out in [*reader.close(), *_usage(reader)]:
                yield out
            yield framework_failure(exc, "LangGraph")
            yield Done(stop_reason=StopReason.ERROR)
            return
        for out in [*reader.close(), *_usage(reader)]:
            yield out
        if reader.interrupts:
            unanswered = [c for c in reader.calls.values() if c.id not in reader.results]
            asked = [pending(i, [*chat.open_calls, *unanswered]) for i in reader.interrupts]
            for out in _asking(asked, announced):
                yield out
            yield Done(stop_reason=StopReason.PAUSED)
            return
        yield Done(stop_reason=StopReason.END_TURN)


def _usage(reader: GraphEvents) -> list[Event]:
    usage = reader.usage()
    return [usage] if usage is not None else []


def _asking(waiting: list[Pending], announced: set[str]) -> list[Event]:
    """The interaction requests of pending interrupts; a call not on the wire yet is announced first
    (an approval is signed against its call)."""
    out: list[Event] = []
    for wait in waiting:
        if not wait.calls:
            out.append(wait.question())
            continue
        for call in wait.calls:
            if call.id not in announced:
                announced.add(call.id or "")
                out.append(ToolCall(id=call.id, name=call.name, input=call.input))
            out.append(approval_request(call))
    return out


def langgraph_agent(
    graph: Any, *, checkpointer: Any = MEMORY, config: Mapping[str, Any] | None = None
) -> LangGraphAgent:
    """Serve ``graph`` (a compiled LangGraph graph with a ``messages`` state) as a turnwire agent.

    ``checkpointer``: where a paused graph waits, keyed by the turnwire session (``thread_id``).
    By default the graph's own, else an in-process ``InMemorySaver``, which holds a pause only in
    the process that ran it; with several workers give a persistent one (e.g. ``langgraph-checkpoint-
    postgres``'s ``AsyncPostgresSaver``). ``None``: none added (plain turns work, ``interrupt()`` fails).
    ``config``: merged into every run's config (``recursion_limit``, ``configurable`` values...).
    """
    return LangGraphAgent(graph, checkpointer=checkpointer, config=config)
