"""Agents for the fidelity tests: the README's example (hard-coded ids), a counter and a talker."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart, ToolCall, ToolResult
from turnwire.runtime import TurnContext


async def shout(ctx: TurnContext) -> AsyncIterator[Event]:
    """The README's agent: ``call_1`` and ``m1`` every turn."""
    text = ctx.last_user_text()
    yield ToolCall(id="call_1", name="upper", input={"text": text})
    yield ToolResult(id="call_1", output=text.upper())
    yield MessageStart(id="m1")
    for word in text.upper().split():
        yield MessageDelta(id="m1", delta=word + " ")
    yield MessageEnd(id="m1")


async def twice(ctx: TurnContext) -> AsyncIterator[Event]:
    """Reuses one call id after its result within a single turn."""
    yield ToolCall(id="c", name="upper", input={"n": 1})
    yield ToolResult(id="c", output="one")
    yield ToolCall(id="c", name="upper", input={"n": 2})
    yield ToolResult(id="c", output="two")
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta="after")
    yield MessageEnd(id="m1")


PAUSE = 0.05


async def counter(ctx: TurnContext) -> AsyncIterator[Event]:
    """``count to N``: ``1 2 … N`` in one message, a number every ``PAUSE`` seconds."""
    words = ctx.last_user_text().split()
    n = int(words[-1]) if words and words[-1].isdigit() else 10
    yield MessageStart(id="m1")
    for i in range(1, n + 1):
        yield MessageDelta(id="m1", delta=f"{i} ")
        await asyncio.sleep(PAUSE)
    yield MessageEnd(id="m1")


async def scripted(ctx: TurnContext) -> AsyncIterator[Event]:
    """Plays the turn the user's message describes: a JSON list of steps (see test_round_trip)."""
    import orjson

    from turnwire.model import (
        AgentEnd,
        AgentStart,
        CustomEvent,
        DataEvent,
        ErrorEvent,
        FileEvent,
        MessageEvent,
        SourceDocument,
        SourceUrl,
        StateDelta,
        StateSnapshot,
        StepEnd,
        StepStart,
        Thought,
        ThoughtDelta,
        ThoughtEnd,
        ThoughtStart,
        ToolCallDelta,
        ToolProgress,
        Usage,
    )

    steps = orjson.loads(ctx.last_user_text())
    n = sum(1 for m in ctx.messages if m.role == "user")
    for i, (kind, *args) in enumerate(steps):
        ref = f"t{n}s{i}"
        if kind == "text":
            yield MessageEvent(text=args[0])
        elif kind == "stream":
            yield MessageStart(id=ref)
            for piece in args[0]:
                yield MessageDelta(id=ref, delta=piece)
            yield MessageEnd(id=ref)
        elif kind == "thought":
            yield Thought(text=args[0])
        elif kind == "think":
            yield ThoughtStart(id=ref)
            for piece in args[0]:
                yield ThoughtDelta(id=ref, delta=piece)
            yield ThoughtEnd(id=ref)
        elif kind == "tool":
            name, arguments, output, data, error = args
            yield ToolCall(id=f"call_{ref}", name=name, input=arguments)
            yield ToolResult(id=f"call_{ref}", name=name, output=output, data=data, is_error=error or None)
        elif kind == "data":
            yield DataEvent(name=args[0], data=args[1])
        elif kind == "transient":
            yield DataEvent(name=args[0], data=args[1], transient=True)
        elif kind == "rendered":
            name, arguments, render = args
            yield ToolCall(id=f"call_{ref}", name=name, input=arguments, render={"call": render})
            yield ToolResult(id=f"call_{ref}", name=name, output="done", render={"result": render})
        elif kind == "file":
            yield FileEvent(url=args[0], media_type=args[1])
        elif kind == "error":
            yield ErrorEvent(message=args[0], code=args[1])
        elif kind == "usage":
            yield Usage(input=args[0], output=args[1])
        elif kind == "streamed":
            name, arguments, progress, output = args
            text = orjson.dumps(arguments).decode()
            yield ToolCallDelta(id=f"call_{ref}", delta=text[:2], name=name)
            yield ToolCallDelta(id=f"call_{ref}", delta=text[2:])
            yield ToolCall(id=f"call_{ref}", name=name, input=arguments)
            yield ToolProgress(id=f"call_{ref}", output=progress)
            yield ToolResult(id=f"call_{ref}", name=name, output=output)
        elif kind == "state":
            yield StateSnapshot(state=args[0])
            yield StateDelta([{"op": "add", "path": "/turn", "value": n}])
        elif kind == "scope":
            yield AgentStart(name=args[0])
            yield StepStart(name=f"{args[0]}-step")
            yield StepEnd(name=f"{args[0]}-step")
            yield AgentEnd(name=args[0])
        elif kind == "custom":
            yield CustomEvent(kind="acme.note", data=args[0])
        elif kind == "source":
            yield SourceUrl(id=f"src_{ref}", url=args[0], title=args[1])
        elif kind == "document":
            yield SourceDocument(
                id=f"doc_{ref}", media_type="application/pdf", title=args[0], filename=args[1]
            )


async def events(ctx: TurnContext) -> AsyncIterator[Event]:
    """Plays raw canonical events the user's message lists (see ``test_agui_ids``): interleaved
    and reopened messages, calls without text, results."""
    import orjson

    from turnwire.model import DataEvent, MessageEvent, Thought, ThoughtDelta, ThoughtEnd, ThoughtStart

    n = sum(1 for m in ctx.messages if m.role == "user")
    for kind, *args in orjson.loads(ctx.last_user_text()):
        if kind == "text":
            yield MessageEvent(text=args[0])
        elif kind == "start":
            yield MessageStart(id=f"m{args[0]}")
        elif kind == "delta":
            yield MessageDelta(id=f"m{args[0]}", delta=args[1])
        elif kind == "end":
            yield MessageEnd(id=f"m{args[0]}")
        elif kind == "thought":
            yield Thought(text=args[0])
        elif kind == "tstart":
            yield ThoughtStart(id=f"t{args[0]}")
        elif kind == "tdelta":
            yield ThoughtDelta(id=f"t{args[0]}", delta=args[1])
        elif kind == "tend":
            yield ThoughtEnd(id=f"t{args[0]}")
        elif kind == "call":
            yield ToolCall(id=f"call_{n}_{args[0]}", name="lookup", input={"k": args[0]})
        elif kind == "result":
            yield ToolResult(id=f"call_{n}_{args[0]}", name="lookup", output=args[1])
        elif kind == "data":
            yield DataEvent(name=args[0], data=args[1], transient=args[2])
