"""How ``GET /agui/threads/{threadId}/connect`` numbers a run's events and resumes after one: the
snapshot after ``RUN_STARTED``, keepalives passed through unnumbered, and on resume the openers of
the parts still open sent again without ids (``doors.agui.connect._numbered``)."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

import orjson
import pytest

from turnwire.framing import SSE_KEEPALIVE, sse_frame
from turnwire.server.doors.agui.connect import _numbered

pytestmark = pytest.mark.anyio

RUN = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "STEP_STARTED", "stepName": "step-1"},
    {"type": "REASONING_START", "messageId": "m"},
    {"type": "REASONING_MESSAGE_START", "messageId": "m", "role": "reasoning"},
    {"type": "REASONING_MESSAGE_END", "messageId": "m"},
    {"type": "REASONING_END", "messageId": "m"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m-2", "role": "assistant"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-2", "delta": "a"},
    {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{"},
    {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "}"},
    {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m-2"},
    {"type": "STEP_FINISHED", "stepName": "step-1"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


async def chunks(data: bytes, size: int) -> AsyncGenerator[bytes, None]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def parse(body: bytes) -> list[tuple[str | None, Any]]:
    out: list[tuple[str | None, Any]] = []
    for event in body.split(b"\n\n"):
        lines = event.split(b"\n")
        ids = [line[4:].decode() for line in lines if line.startswith(b"id: ")]
        data = [orjson.loads(line[6:]) for line in lines if line.startswith(b"data: ")]
        if data:
            out.append((ids[0] if ids else None, data[0]))
    return out


async def collect(skip: int, snapshot: bytes | None, size: int) -> tuple[bytes, list[tuple[str | None, Any]]]:
    log = b"".join(sse_frame(e) for e in RUN[:3]) + SSE_KEEPALIVE + b"".join(sse_frame(e) for e in RUN[3:])
    got = b"".join([b async for b in _numbered(chunks(log, size), "T", skip, snapshot)])
    return got, parse(got)


@pytest.mark.parametrize("size", [1, 7, 10_000])  # chunks cut anywhere, or the whole log at once
async def test_a_fresh_connect_numbers_every_event_and_puts_the_snapshot_after_the_first(size: int) -> None:
    snapshot = sse_frame({"type": "MESSAGES_SNAPSHOT", "messages": []})
    raw, events = await collect(0, snapshot, size)
    assert [e for _, e in events] == [RUN[0], {"type": "MESSAGES_SNAPSHOT", "messages": []}, *RUN[1:]]
    assert [i for i, _ in events] == ["T:1", None, *[f"T:{n}" for n in range(2, len(RUN) + 1)]]
    assert SSE_KEEPALIVE in raw


@pytest.mark.parametrize("size", [3, 10_000])
async def test_resuming_sends_run_started_and_the_open_parts_openers_then_the_rest(size: int) -> None:
    # After event 10 (the first TOOL_CALL_ARGS): the step, the text and the tool call are open,
    # the reasoning is closed.
    _, events = await collect(10, None, size)
    assert events[:4] == [(None, RUN[0]), (None, RUN[1]), (None, RUN[6]), (None, RUN[8])]
    assert events[4:] == [(f"T:{n}", RUN[n - 1]) for n in range(11, len(RUN) + 1)]


async def test_resuming_after_everything_but_the_end() -> None:
    _, events = await collect(len(RUN) - 1, None, 10_000)
    assert events == [(None, RUN[0]), (f"T:{len(RUN)}", RUN[-1])]


SUBAGENT_RUN = [
    {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
    {"type": "STEP_STARTED", "stepName": "plan"},
    {"type": "SUBAGENT_STARTED", "subagentRunId": "M:a", "name": "a"},
    {"type": "STEP_STARTED", "stepName": "plan", "subagentRunId": "M:a"},
    {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant", "subagentRunId": "M:a"},
    {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x", "subagentRunId": "M:a"},
    {"type": "STEP_FINISHED", "stepName": "plan", "subagentRunId": "M:a"},
    {"type": "TEXT_MESSAGE_END", "messageId": "m", "subagentRunId": "M:a"},
    {"type": "SUBAGENT_FINISHED", "subagentRunId": "M:a"},
    {"type": "STEP_FINISHED", "stepName": "plan"},
    {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"},
]


async def test_resuming_inside_a_sub_agent_opens_it_again_and_keeps_steps_per_agent() -> None:
    # verifyEvents refuses a SUBAGENT_FINISHED whose start this connection did not see, and keeps
    # one step name apart per agent.
    log = b"".join(sse_frame(e) for e in SUBAGENT_RUN)
    for skip, reopened in ((6, [1, 2, 3, 4]), (7, [1, 2, 4]), (9, [1])):
        got = b"".join([b async for b in _numbered(chunks(log, 10_000), "T", skip, None)])
        events = parse(got)
        assert events[: len(reopened) + 1] == [(None, SUBAGENT_RUN[0])] + [
            (None, SUBAGENT_RUN[i]) for i in reopened
        ]
        assert [i for i, _ in events[len(reopened) + 1 :]] == [
            f"T:{n}" for n in range(skip + 1, len(SUBAGENT_RUN) + 1)
        ]
