"""The runner turns any agent's output into a well-formed stream ending in exactly one Done."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import AsyncIterator
from typing import Any

import pytest

from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def ctx() -> TurnContext:
    return TurnContext(messages=[], session_id="s1", parameters={}, trace_id=TRACE)


def scripted(*items: Any, raise_at_end: BaseException | None = None):
    async def agent(_: TurnContext) -> AsyncIterator[Any]:
        for item in items:
            yield item
        if raise_at_end is not None:
            raise raise_at_end

    return agent


async def collect(agent: Any, context: TurnContext | None = None) -> list[Event]:
    return [event async for event in run_turn(agent, context or ctx())]


def done(reason: str) -> Done:
    return Done(stop_reason=reason, trace_id=TRACE)


async def test_well_formed_stream_passes_through_with_the_runner_done() -> None:
    events = [
        ThoughtStart("t1"),
        ThoughtDelta("t1", "hmm"),
        ThoughtEnd("t1"),
        MessageStart("m1"),
        MessageDelta("m1", "hi"),
        MessageEnd("m1"),
        ToolCall(id="c1", name="x", input={}),
        ToolResult(id="c1", output="ok"),
        MessageEvent("whole"),
        DataEvent(name="n", data={"a": 1}),
        Usage(input=1, output=2, total=3),
    ]
    out = await collect(scripted(*events, Done(stop_reason="end_turn")))
    assert out == [*events, done("end_turn")]


async def test_delta_without_start_opens_the_part_first() -> None:
    out = await collect(scripted(MessageDelta("m1", "a"), MessageDelta("m1", "b"), MessageEnd("m1")))
    assert out == [
        MessageStart("m1"),
        MessageDelta("m1", "a"),
        MessageDelta("m1", "b"),
        MessageEnd("m1"),
        done("end_turn"),
    ]


async def test_thought_delta_without_start_opens_the_thought() -> None:
    out = await collect(scripted(ThoughtDelta("t", "x"), ThoughtEnd("t")))
    assert out == [ThoughtStart("t"), ThoughtDelta("t", "x"), ThoughtEnd("t"), done("end_turn")]


async def test_delta_after_its_part_ended_reopens_it_so_no_text_is_lost() -> None:
    out = await collect(scripted(MessageStart("m"), MessageEnd("m"), MessageDelta("m", "late")))
    assert out == [
        MessageStart("m"),
        MessageEnd("m"),
        MessageStart("m"),
        MessageDelta("m", "late"),
        MessageEnd("m"),
        done("end_turn"),
    ]


async def test_end_without_start_is_dropped() -> None:
    out = await collect(scripted(MessageEnd("ghost"), ThoughtEnd("ghost"), MessageEvent("x")))
    assert out == [MessageEvent("x"), done("end_turn")]


async def test_second_start_for_an_open_id_closes_the_first() -> None:
    out = await collect(
        scripted(MessageStart("m"), MessageDelta("m", "a"), MessageStart("m"), MessageEnd("m"))
    )
    assert out == [
        MessageStart("m"),
        MessageDelta("m", "a"),
        MessageEnd("m"),
        MessageStart("m"),
        MessageEnd("m"),
        done("end_turn"),
    ]


async def test_message_and_thought_ids_are_separate_namespaces() -> None:
    out = await collect(scripted(MessageStart("x"), ThoughtDelta("x", "t"), MessageDelta("x", "m")))
    assert out == [
        MessageStart("x"),
        ThoughtStart("x"),
        ThoughtDelta("x", "t"),
        MessageDelta("x", "m"),
        MessageEnd("x"),
        ThoughtEnd("x"),
        done("end_turn"),
    ]


async def test_unclosed_parts_are_closed_in_opening_order_before_done() -> None:
    out = await collect(scripted(ThoughtStart("t"), MessageStart("a"), MessageStart("b"), MessageEnd("a")))
    assert out == [
        ThoughtStart("t"),
        MessageStart("a"),
        MessageStart("b"),
        MessageEnd("a"),
        ThoughtEnd("t"),
        MessageEnd("b"),
        done("end_turn"),
    ]


async def test_no_done_from_the_agent_gives_end_turn() -> None:
    assert await collect(scripted(MessageEvent("hi"))) == [MessageEvent("hi"), done("end_turn")]


async def test_agent_yielding_nothing_still_gets_one_done() -> None:
    assert await collect(scripted()) == [done("end_turn")]


async def test_two_dones_become_one_final_done_with_the_last_non_null_reason() -> None:
    out = await collect(
        scripted(
            Done(stop_reason="max_tokens", trace_id="agent-trace"),
            MessageEvent("more"),
            Done(stop_reason="refusal"),
            Done(stop_reason=None),
            Done(stop_reason="  "),
        )
    )
    assert out == [MessageEvent("more"), done("refusal")]


async def test_interaction_request_without_stop_reason_pauses() -> None:
    request = InteractionRequest(id="perm_1", kind="user_approval", payload={"toolCallId": "c1"})
    assert await collect(scripted(request)) == [request, done("paused")]


async def test_agent_stop_reason_beats_the_paused_default() -> None:
    request = InteractionRequest(id="perm_1", kind="user_approval")
    out = await collect(scripted(request, Done(stop_reason="tool_use")))
    assert out == [request, done("tool_use")]


async def test_live_error_without_stop_reason_ends_with_error() -> None:
    error = ErrorEvent(message="rate limited", code="provider_error")
    assert await collect(scripted(error)) == [error, done("error")]


async def test_orphan_tool_result_is_passed_through() -> None:
    orphan = ToolResult(id="never_called", output="x")
    assert await collect(scripted(orphan)) == [orphan, done("end_turn")]


async def test_done_carries_the_context_trace_id_not_the_agents() -> None:
    out = await collect(scripted(Done(stop_reason="end_turn", trace_id="other")))
    assert out[-1].trace_id == TRACE


async def test_empty_trace_id_is_omitted_not_sent_empty() -> None:
    out = await collect(scripted(), TurnContext(messages=[], trace_id=""))
    assert out == [Done(stop_reason="end_turn", trace_id=None)]


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "message", "text": "dict"},
        "plain string",
        None,
        42,
        MessageDelta("m", 5),  # type: ignore[arg-type]
        MessageStart(""),
        Done(stop_reason=3),  # type: ignore[arg-type]
    ],
    ids=["dict", "str", "none", "int", "delta-not-str", "empty-id", "done-reason-int"],
)
async def test_non_event_yield_stops_the_turn_with_an_error(bad: Any) -> None:
    state: dict[str, Any] = {}

    async def agent(_: TurnContext) -> AsyncIterator[Any]:
        try:
            yield MessageStart("m")
            yield MessageDelta("m", "before")
            yield bad
            await asyncio.sleep(10)  # still running when the runner rejects the bad event
            yield MessageDelta("m", "after")
        except BaseException as exc:
            state["ended_by"] = type(exc)
            raise
        state["ended_by"] = None

    run = run_turn(agent, ctx())
    out = [event async for event in run]
    assert out[:3] == [MessageStart("m"), MessageDelta("m", "before"), MessageEnd("m")]
    error, final = out[3], out[4]
    assert isinstance(error, ErrorEvent)
    assert error.code == "invalid_event"
    assert error.message.startswith("Agent run failed: ")
    assert final == done("error")
    assert len(out) == 5
    assert run.agent_task is not None and run.agent_task.done()
    assert state["ended_by"] is asyncio.CancelledError


async def test_error_for_a_non_event_names_what_was_yielded() -> None:
    out = await collect(scripted({"type": "message"}))
    assert out[0] == ErrorEvent(
        message="Agent run failed: agent yielded dict, not a turnwire event", code="invalid_event"
    )


async def test_exception_mid_text_closes_the_part_then_reports_the_error() -> None:
    out = await collect(
        scripted(MessageStart("m"), MessageDelta("m", "par"), raise_at_end=RuntimeError("boom"))
    )
    assert out == [
        MessageStart("m"),
        MessageDelta("m", "par"),
        MessageEnd("m"),
        ErrorEvent(message="Agent run failed: boom", code="agent_run_failed"),
        done("error"),
    ]


async def test_exception_before_any_event() -> None:
    out = await collect(scripted(raise_at_end=ValueError("bad config")))
    assert out == [ErrorEvent(message="Agent run failed: bad config", code="agent_run_failed"), done("error")]


async def test_exception_overrides_a_stop_reason_the_agent_already_sent() -> None:
    out = await collect(scripted(Done(stop_reason="end_turn"), raise_at_end=RuntimeError("late")))
    assert out[-1] == done("error")


async def test_error_text_is_the_first_line_without_stack_or_control_characters() -> None:
    exc = RuntimeError("\n  first \x1b[31mline\x07  \nTraceback (most recent call last):\n  File x")
    out = await collect(scripted(raise_at_end=exc))
    assert out[0].message == "Agent run failed: first [31mline"  # type: ignore[union-attr]


async def test_error_text_is_at_most_2000_characters() -> None:
    out = await collect(scripted(raise_at_end=RuntimeError("x" * 5000)))
    message = out[0].message  # type: ignore[union-attr]
    assert len(message) == 2000
    assert message.startswith("Agent run failed: xxx")


async def test_exception_without_text_reports_its_class() -> None:
    out = await collect(scripted(raise_at_end=KeyError()))
    assert out[0].message == "Agent run failed: KeyError"  # type: ignore[union-attr]


async def test_agent_that_raises_when_called_is_reported() -> None:
    def agent(_: TurnContext) -> AsyncIterator[Event]:
        raise LookupError("no model configured")

    out = await collect(agent)
    assert out == [
        ErrorEvent(message="Agent run failed: no model configured", code="agent_run_failed"),
        done("error"),
    ]


async def test_async_function_without_yield_is_reported_and_its_coroutine_closed() -> None:
    async def not_a_generator(_: TurnContext) -> None:
        return None

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a "never awaited" warning would fail here
        out = await collect(not_a_generator)
    assert isinstance(out[0], ErrorEvent) and "async generator" in out[0].message
    assert out[1] == done("error")
