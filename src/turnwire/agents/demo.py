"""The offline demo agent: deterministic, no model, no network.

It reads the last user message (trimmed, commands matched case-insensitively) and answers:

| message            | turn                                                                  |
|--------------------|-----------------------------------------------------------------------|
| anything else      | a thought, then ``You said: <text>`` streamed word by word, usage     |
| ``weather in <c>`` | a thought, a ``get_weather`` tool call and its result, a sentence     |
| ``count to <n>``   | ``n`` one-number messages, 50 ms apart (n capped at 100000)            |
| ``sleep <s>``      | ``s`` seconds (capped at 60) of silence, then ``Done sleeping.``       |
| ``fail``           | ``Starting…`` left open, then ``RuntimeError("demo failure requested")`` |
| ``silent``         | no events at all (the runner still ends the turn)                     |
| ``delete <p> [and <q>…]`` | a ``delete_file {"path"}`` call per path, each gated by an approval; |
|                    | approved → result + ``Deleted <p>.``, denied → ``I did not delete <p>.``   |
| ``ask me``         | asks ``What should I echo?`` (a ``user_input`` interaction); the next   |
|                    | user message, whatever it says, is echoed as ``You answered: <text>``   |
| ``sources for <t>`` | every event of the newer wires: a ``researcher`` sub-agent, a step,   |
|                    | state (snapshot, delta), a ``search`` call whose input streams, its    |
|                    | progress and result, a URL and a document source, a custom event      |

Every id is derived from the history (message/thought ids from the number of user messages, tool
call ids from the number of tool calls already in it), so a cold replay gives the same turn.

The two interactive commands pause with ``ctx = yield Done("paused")``: a warm session sends the
next turn's context into that ``yield``, a cold replay starts over from the full history; both
rebuild the turn from that history, so they produce the same events.

To add a command, add a ``(pattern, handler)`` row to ``COMMANDS``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from typing import Final
from urllib.parse import quote

import orjson

from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    Done,
    Event,
    InteractionKind,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    StopReason,
    TextBlock,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, tool_call_count, user_turns

COUNT_LIMIT: Final = 100_000
COUNT_INTERVAL: Final = 0.05
SLEEP_LIMIT: Final = 60.0

_WORD = re.compile(r"\S+\s*")
_AND = re.compile(r"\s+and\s+", re.IGNORECASE)
ASK_PATTERN: Final = re.compile(r"ask me", re.IGNORECASE)
ASK_PROMPT: Final = "What should I echo?"
DELETE_TOOL: Final = "delete_file"


class _Turn:
    """One demo turn: the user's text, the command's match, and deterministic ids
    (``msg_<turn>_<k>``, ``thought_<turn>_<k>``, ``call_<n>``)."""

    __slots__ = ("_calls", "_messages", "_thoughts", "_turn", "ctx", "match", "text")

    def __init__(self, ctx: TurnContext, text: str, match: re.Match[str] | None) -> None:
        self.ctx = ctx
        self.text = text
        self.match = match
        self._turn = user_turns(ctx.messages)
        self._calls = tool_call_count(ctx.messages)
        self._messages = 0
        self._thoughts = 0

    def call_id(self) -> str:
        self._calls += 1
        return f"call_{self._calls}"

    def say(self, text: str) -> list[Event]:
        """One streamed message: start, one delta per word, end."""
        self._messages += 1
        message_id = f"msg_{self._turn}_{self._messages}"
        return [
            MessageStart(id=message_id),
            *(MessageDelta(id=message_id, delta=word) for word in words(text)),
            MessageEnd(id=message_id),
        ]

    def think(self, text: str) -> list[Event]:
        """One streamed thought in a single delta."""
        self._thoughts += 1
        thought_id = f"thought_{self._turn}_{self._thoughts}"
        return [
            ThoughtStart(id=thought_id),
            ThoughtDelta(id=thought_id, delta=text),
            ThoughtEnd(id=thought_id),
        ]

    def usage(self, output_words: int) -> Usage:
        """Usage counted in words: the user's text in, ``output_words`` out."""
        input_words = len(self.text.split())
        return Usage(input=input_words, output=output_words, total=input_words + output_words)


def words(text: str) -> list[str]:
    """``text`` cut into deltas of one word plus the whitespace after it; they join back to it."""
    return _WORD.findall(text)


Handler = Callable[[_Turn], AsyncIterator[Event]]


async def _echo(turn: _Turn) -> AsyncIterator[Event]:
    if turn.text:
        thought, reply = f"The user said: {turn.text}.", f"You said: {turn.text}"
    else:
        thought, reply = "The user said nothing.", "You said nothing."
    for event in turn.think(thought):
        yield event
    for event in turn.say(reply):
        yield event
    yield turn.usage(len(words(reply)))
    yield Done(stop_reason=StopReason.END_TURN)


async def _weather(turn: _Turn) -> AsyncIterator[Event]:
    assert turn.match is not None
    city = turn.match["city"].strip().rstrip("?!.").strip() or "nowhere"
    for event in turn.think(f"The user wants the weather in {city}. I will call get_weather."):
        yield event
    call_id = turn.call_id()
    yield ToolCall(id=call_id, name="get_weather", input={"city": city})
    yield ToolResult(
        id=call_id,
        name="get_weather",
        output=f"Sunny, 21 °C in {city}",
        data={"city": city, "condition": "Sunny", "temperature_c": 21},
    )
    reply = f"It is sunny and 21 °C in {city}."
    for event in turn.say(reply):
        yield event
    yield turn.usage(len(words(reply)))
    yield Done(stop_reason=StopReason.END_TURN)


async def _count(turn: _Turn) -> AsyncIterator[Event]:
    assert turn.match is not None
    n = min(int(turn.match["n"]), COUNT_LIMIT)
    for i in range(1, n + 1):
        if i > 1:
            await asyncio.sleep(COUNT_INTERVAL)
        for event in turn.say(str(i)):
            yield event
    yield turn.usage(n)
    yield Done(stop_reason=StopReason.END_TURN)


async def _sleep(turn: _Turn) -> AsyncIterator[Event]:
    assert turn.match is not None
    await asyncio.sleep(min(float(turn.match["seconds"]), SLEEP_LIMIT))
    reply = "Done sleeping."
    for event in turn.say(reply):
        yield event
    yield turn.usage(len(words(reply)))
    yield Done(stop_reason=StopReason.END_TURN)


async def _fail(turn: _Turn) -> AsyncIterator[Event]:
    start, delta, _end = turn.say("Starting…")
    yield start
    yield delta
    # Left open on purpose: the runner must close the part before it reports the failure.
    raise RuntimeError("demo failure requested")


async def _silent(turn: _Turn) -> AsyncIterator[Event]:
    return
    yield  # makes this an async generator that yields nothing


SEARCH_TOOL: Final = "search"
RESEARCHER: Final = "researcher"


async def _sources(turn: _Turn) -> AsyncIterator[Event]:
    """One turn with each of the newer wires' events, in the order a research agent sends them."""
    assert turn.match is not None
    topic = turn.match["topic"].strip().rstrip("?!.").strip() or "nothing"
    n = turn._turn
    yield AgentStart(name=RESEARCHER)
    yield StateSnapshot({"topic": topic, "sources": 0})
    yield StepStart(name="search")
    call_id = turn.call_id()
    arguments = {"query": topic}
    text = orjson.dumps(arguments).decode()
    cut = len(text) // 2
    for i, piece in enumerate((text[:cut], text[cut:])):  # the input streams in two pieces
        yield ToolCallDelta(id=call_id, delta=piece, name=SEARCH_TOOL if i == 0 else None)
    yield ToolCall(id=call_id, name=SEARCH_TOOL, input=arguments)
    yield ToolProgress(id=call_id, output={"status": "searching", "found": 1})
    found = {"query": topic, "found": 2}
    yield ToolResult(id=call_id, name=SEARCH_TOOL, output=f"2 sources for {topic}", data=found)
    yield StepEnd(name="search")
    yield StateDelta([{"op": "replace", "path": "/sources", "value": 2}])
    page = quote(topic.replace(" ", "_"), safe="_")
    yield SourceUrl(id=f"src_{n}_1", url=f"https://en.wikipedia.org/wiki/{page}", title=topic)
    yield SourceDocument(
        id=f"src_{n}_2", media_type="application/pdf", title=f"Notes on {topic}", filename="notes.pdf"
    )
    yield CustomEvent(kind="turnwire.demo_sources", data={"topic": topic, "count": 2})
    reply = f"Here are 2 sources for {topic}."
    for event in turn.say(reply):
        yield event
    yield AgentEnd(name=RESEARCHER)
    yield turn.usage(len(words(reply)))
    yield Done(stop_reason=StopReason.END_TURN)


def _this_turn(messages: list[Message]) -> list[Message]:
    """The messages after the last user message: what this turn already produced."""
    for i in range(len(messages) - 1, -1, -1):
        if messages[i].role == "user":
            return messages[i + 1 :]
    return messages


def _delete_calls(turn: _Turn) -> tuple[dict[str, str], set[str]]:
    """``delete_file`` calls already made this turn (id → path) and the ids that have a real result."""
    calls: dict[str, str] = {}
    done: set[str] = set()
    for message in _this_turn(turn.ctx.messages):
        for block in message.content:
            if isinstance(block, ToolCallBlock) and block.name == DELETE_TOOL and block.id:
                path = block.input.get("path") if isinstance(block.input, dict) else None
                calls.setdefault(block.id, path if isinstance(path, str) else "")
            elif isinstance(block, ToolResultBlock) and block.id in calls:
                output = block.output
                if not (isinstance(output, dict) and isinstance(output.get("approved"), bool)):
                    done.add(block.id)
    return calls, done


def _approval(call_id: str, path: str) -> InteractionRequest:
    arguments = {"path": path}
    return InteractionRequest(
        id=f"approve_{call_id}",  # the server replaces it with a signed token
        kind=InteractionKind.USER_APPROVAL,
        payload={
            "toolCallId": call_id,
            "toolName": DELETE_TOOL,
            "toolCall": {"toolCallId": call_id, "name": DELETE_TOOL, "rawInput": arguments},
        },
    )


async def _delete(turn: _Turn) -> AsyncIterator[Event]:
    assert turn.match is not None
    while True:
        calls, done = _delete_calls(turn)
        fresh = not calls
        if fresh:
            for path in _AND.split(turn.match["paths"].strip()):
                calls[turn.call_id()] = path.strip()
        decided = turn.ctx.decisions()
        pending = [call_id for call_id in calls if call_id not in decided]
        if not pending:
            break
        for call_id in pending:
            if fresh:
                yield ToolCall(id=call_id, name=DELETE_TOOL, input={"path": calls[call_id]})
            yield _approval(call_id, calls[call_id])
        ctx = yield Done(stop_reason=StopReason.PAUSED)
        if ctx is None:  # run without a warm session: the next turn replays cold
            return
        # Resumed warm: rebuild from the new history, exactly what a cold replay starts from.
        turn = _Turn(ctx, ctx.last_user_text(), turn.match)
    sentences = []
    for call_id, path in calls.items():
        approved = decided[call_id].approved
        if call_id not in done:
            if approved:
                data = {"path": path, "deleted": True}
                yield ToolResult(id=call_id, name=DELETE_TOOL, output=f"{path} deleted", data=data)
            else:
                yield ToolResult(
                    id=call_id, name=DELETE_TOOL, output="The user denied it.", is_error=True, denied=True
                )
        sentences.append(f"Deleted {path}." if approved else f"I did not delete {path}.")
    reply = " ".join(sentences)
    for event in turn.say(reply):
        yield event
    yield turn.usage(len(words(reply)))
    yield Done(stop_reason=StopReason.END_TURN)


async def _ask(turn: _Turn) -> AsyncIterator[Event]:
    for event in turn.say(ASK_PROMPT):
        yield event
    yield InteractionRequest(
        id=f"input_{turn._turn}", kind=InteractionKind.USER_INPUT, payload={"prompt": ASK_PROMPT}
    )
    ctx = yield Done(stop_reason=StopReason.PAUSED)
    if ctx is None:
        return
    # Resumed warm by the next user message: answer it as a cold replay of that message would.
    text = ctx.last_user_text()
    async for event in _answer(_Turn(ctx, text, None)):
        yield event


async def _answer(turn: _Turn) -> AsyncIterator[Event]:
    reply = f"You answered: {turn.text}"
    for event in turn.say(reply):
        yield event
    yield turn.usage(len(words(reply)))
    yield Done(stop_reason=StopReason.END_TURN)


def _answers_a_question(ctx: TurnContext) -> bool:
    """Whether the last user message answers ``ask me`` (the user message before it asked)."""
    users = [m for m in ctx.messages if m.role == "user"]
    if len(users) < 2 or ctx.messages[-1].role != "user":
        return False
    previous = "".join(b.text for b in users[-2].content if isinstance(b, TextBlock)).strip()
    return ASK_PATTERN.fullmatch(previous) is not None


COMMANDS: Final[list[tuple[re.Pattern[str], Handler]]] = [
    (re.compile(r"weather in\s+(?P<city>.+)", re.IGNORECASE | re.DOTALL), _weather),
    (re.compile(r"count to\s+(?P<n>\d{1,12})", re.IGNORECASE), _count),
    (re.compile(r"sleep\s+(?P<seconds>\d{1,6}(?:\.\d{1,6})?)", re.IGNORECASE), _sleep),
    (re.compile(r"fail", re.IGNORECASE), _fail),
    (re.compile(r"silent", re.IGNORECASE), _silent),
    (re.compile(r"delete\s+(?P<paths>.+)", re.IGNORECASE | re.DOTALL), _delete),
    (ASK_PATTERN, _ask),
    (re.compile(r"sources for\s+(?P<topic>.+)", re.IGNORECASE | re.DOTALL), _sources),
]
"""Command table: the first pattern that matches the whole trimmed text picks the handler."""


def demo_agent(ctx: TurnContext) -> AsyncIterator[Event]:
    """Offline demo: weather in <city>, count to <n>, sleep <s>, delete <path>, ask me, sources for
    <topic>, fail, silent.

    Anything else is echoed.

    Answers the last user message by the first matching entry of ``COMMANDS``.

    Returns the handler's generator itself (no wrapping ``async for``), so a warm session's
    ``asend`` reaches the handler's ``yield``.
    """
    text = ctx.last_user_text()
    if _answers_a_question(ctx):
        return _answer(_Turn(ctx, text, None))
    for pattern, command in COMMANDS:
        match = pattern.fullmatch(text)
        if match is not None:
            return command(_Turn(ctx, text, match))
    return _echo(_Turn(ctx, text, None))


AGUI_CAPABILITIES: Final = {
    "reasoning": {"supported": True, "streaming": True},
    "state": {"snapshots": True, "deltas": True},
    "multiAgent": {"supported": True, "delegation": True, "subagents": [{"name": RESEARCHER}]},
    "humanInTheLoop": {"approvals": True},
}
"""What the demo declares of itself to an AG-UI client's capability discovery (its thoughts, the
``sources for`` turn's state and researcher, the approvals ``delete`` asks for)."""
setattr(demo_agent, "agui_capabilities", AGUI_CAPABILITIES)  # noqa: B010 (a function's attribute)
