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

Every id is derived from the history (message/thought ids from the number of user messages, tool
call ids from the number of tool calls already in it), so a cold replay gives the same turn.

To add a command, add a ``(pattern, handler)`` row to ``COMMANDS``. The approval and user-input
commands (``delete <path>``, ``ask me``) belong there too; they will read earlier answers with
``ctx.decisions()`` so a paused turn resumes cold from the full history.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable
from typing import Final

from turnwire.model import (
    Done,
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    StopReason,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)
from turnwire.runtime import TurnContext, tool_call_count, user_turns

COUNT_LIMIT: Final = 100_000
COUNT_INTERVAL: Final = 0.05
SLEEP_LIMIT: Final = 60.0

_WORD = re.compile(r"\S+\s*")


class _Turn:
    """One demo turn: the user's text, the command's match, and deterministic ids
    (``msg_<turn>_<k>``, ``thought_<turn>_<k>``, ``call_<n>``)."""

    __slots__ = ("_calls", "_messages", "_thoughts", "_turn", "match", "text")

    def __init__(self, ctx: TurnContext, text: str, match: re.Match[str] | None) -> None:
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


COMMANDS: Final[list[tuple[re.Pattern[str], Handler]]] = [
    (re.compile(r"weather in\s+(?P<city>.+)", re.IGNORECASE | re.DOTALL), _weather),
    (re.compile(r"count to\s+(?P<n>\d{1,12})", re.IGNORECASE), _count),
    (re.compile(r"sleep\s+(?P<seconds>\d{1,6}(?:\.\d{1,6})?)", re.IGNORECASE), _sleep),
    (re.compile(r"fail", re.IGNORECASE), _fail),
    (re.compile(r"silent", re.IGNORECASE), _silent),
    # Next: r"delete\s+(?P<path>.+)" (user_approval) and r"ask me" (user_input).
]
"""Command table: the first pattern that matches the whole trimmed text picks the handler."""


async def demo_agent(ctx: TurnContext) -> AsyncIterator[Event]:
    """The demo agent: answers the last user message per the command table above."""
    text = ctx.last_user_text()
    handler: Handler = _echo
    match = None
    for pattern, command in COMMANDS:
        match = pattern.fullmatch(text)
        if match is not None:
            handler = command
            break
    async for event in handler(_Turn(ctx, text, match)):
        yield event
