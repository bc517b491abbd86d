"""The warm-session pool, the history fingerprint, and resuming parked agents (or not)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from turnwire.agents import demo_agent
from turnwire.model import (
    Done,
    Event,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEvent,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from turnwire.runtime import TurnContext
from turnwire.runtime.approvals import ApprovalSigner
from turnwire.runtime.warm import Parked, WarmPool, WarmStarts, history_fingerprint

pytestmark = pytest.mark.anyio


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def entry(waiting: bool) -> Parked:
    gates = frozenset({"call_1"}) if waiting else frozenset()
    return Parked(agent=demo_agent, agen=None, fingerprint="f", approvals=gates, user_input=not waiting)


def user(text: str) -> Message:
    return Message("user", [TextBlock(text)])


def test_entries_expire_after_their_own_ttl() -> None:
    clock = Clock()
    pool = WarmPool(max_entries=4, idle_ttl=60, waiting_ttl=600, clock=clock)
    assert pool.park(("a", "idle"), entry(waiting=False))
    assert pool.park(("a", "waiting"), entry(waiting=True))
    clock.now = 59.9
    assert len(pool) == 2
    clock.now = 60
    assert pool.checkout(("a", "idle")) is None
    assert ("a", "waiting") in pool
    clock.now = 600
    assert pool.checkout(("a", "waiting")) is None


def test_entries_parked_later_or_left_after_a_checkout_expire_on_time() -> None:
    clock = Clock()
    pool = WarmPool(max_entries=4, idle_ttl=60, waiting_ttl=600, clock=clock)
    pool.park(("a", "first"), entry(waiting=False))  # expires at 60
    pool.park(("a", "taken"), entry(waiting=False))
    clock.now = 30
    assert pool.checkout(("a", "taken")) is not None
    pool.park(("a", "later"), entry(waiting=False))  # expires at 90
    clock.now = 60
    assert pool.checkout(("a", "first")) is None
    clock.now = 89.9
    assert pool.checkout(("a", "unknown")) is None  # sweeps
    assert ("a", "later") in pool
    clock.now = 90
    assert pool.checkout(("a", "later")) is None and len(pool) == 0


def test_a_full_pool_evicts_the_least_recently_parked_idle_entry_only() -> None:
    pool = WarmPool(max_entries=3, clock=Clock())
    pool.park(("a", "w1"), entry(waiting=True))
    pool.park(("a", "i1"), entry(waiting=False))
    pool.park(("a", "i2"), entry(waiting=False))
    assert pool.park(("a", "w2"), entry(waiting=True))
    assert ("a", "i1") not in pool and ("a", "i2") in pool and ("a", "w1") in pool
    assert pool.park(("a", "w3"), entry(waiting=True))
    assert not pool.park(("a", "w4"), entry(waiting=True)), "never evict a turn waiting on a decision"
    assert len(pool) == 3


def test_checkout_takes_the_entry_once_and_size_zero_never_parks() -> None:
    pool = WarmPool(max_entries=2, clock=Clock())
    parked = entry(waiting=True)
    pool.park(("a", "s"), parked)
    assert pool.checkout(("a", "s")) is parked
    assert pool.checkout(("a", "s")) is None
    assert not WarmPool(max_entries=0).park(("a", "s"), entry(waiting=True))


def test_fingerprint_drops_a_trailing_user_message_and_ignores_assistant_text() -> None:
    call = Message("assistant", [TextBlock("one wording"), ToolCallBlock("call_1", "t", {})])
    reworded = Message("assistant", [TextBlock("another"), ToolCallBlock("call_1", "t", {})])
    base = [user("delete x"), call]
    assert history_fingerprint(base) == history_fingerprint([user("delete x"), reworded])
    assert history_fingerprint(base) == history_fingerprint([*base, user("next")])
    assert history_fingerprint(base) != history_fingerprint([user("delete y"), call])
    swapped = [user("d"), Message("assistant", [ToolCallBlock("b"), ToolCallBlock("a")])]
    assert history_fingerprint(swapped) != history_fingerprint(
        [user("d"), Message("assistant", [ToolCallBlock("a"), ToolCallBlock("b")])]
    )


def sessions(pool_max: int = 8) -> WarmStarts:
    return WarmStarts(ApprovalSigner(b"k" * 32), WarmPool(max_entries=pool_max))


async def run(ws: WarmStarts, agent, messages: list[Message], trace: str = "t") -> list[Event]:
    return [e async for e in ws.start("agent", agent, TurnContext(messages, "s1", trace_id=trace))]


def resume_history(paused: list[Event], approved: bool = True) -> list[Message]:
    request = next(e for e in paused if isinstance(e, InteractionRequest))
    decision = {"approved": approved, "interactionToken": request.id}
    return [
        user("delete notes.txt"),
        Message(
            "assistant",
            [
                ToolCallBlock("call_1", "delete_file", {"path": "notes.txt"}),
                ToolResultBlock("call_1", output=decision),
            ],
        ),
    ]


async def test_a_matching_resume_is_warm_and_equals_the_cold_replay() -> None:
    warm, cold = sessions(), sessions(pool_max=0)
    paused = await run(warm, demo_agent, [user("delete notes.txt")])
    assert paused == await run(cold, demo_agent, [user("delete notes.txt")])
    assert len(warm.pool) == 1 and len(cold.pool) == 0
    history = resume_history(paused)
    assert await run(warm, demo_agent, history, "t2") == await run(cold, demo_agent, history, "t2")
    assert (warm.hits, warm.misses) == (1, 0)
    assert len(warm.pool) == 0


async def test_a_history_that_does_not_match_evicts_and_runs_cold() -> None:
    ws = sessions()
    await run(ws, demo_agent, [user("delete notes.txt")])
    assert len(ws.pool) == 1
    out = await run(ws, demo_agent, [user("delete notes.txt"), Message("assistant", []), user("hello")])
    assert (ws.hits, ws.misses) == (0, 1) and len(ws.pool) == 0
    assert "".join(e.delta for e in out if isinstance(e, MessageDelta)) == "You said: hello"


async def test_an_unanswered_gate_evicts_and_asks_again() -> None:
    ws = sessions()
    paused = await run(ws, demo_agent, [user("delete notes.txt")])
    again = [
        user("delete notes.txt"),
        Message("assistant", [ToolCallBlock("call_1", "delete_file", {"path": "notes.txt"})]),
    ]
    out = await run(ws, demo_agent, again)
    assert ws.misses == 1
    assert [e for e in out if isinstance(e, InteractionRequest)] == [
        e for e in paused if isinstance(e, InteractionRequest)
    ]


async def test_an_agent_written_for_cold_resume_only_falls_back_to_a_cold_replay() -> None:
    starts: list[int] = []

    async def cold_only(ctx: TurnContext) -> AsyncIterator[Event]:
        starts.append(len(ctx.messages))
        if ctx.decisions():
            yield MessageEvent(text="done")
            return
        yield InteractionRequest(
            id="x",
            kind="user_approval",
            payload={
                "toolCallId": "call_1",
                "toolName": "delete_file",
                "toolCall": {"rawInput": {"path": "notes.txt"}},
            },
        )
        yield Done(stop_reason="paused")

    ws = sessions()
    paused = await run(ws, cold_only, [user("delete notes.txt")])
    out = await run(ws, cold_only, resume_history(paused))
    assert ws.hits == 1 and ws.cold_fallbacks == 1 and starts == [1, 2]
    assert MessageEvent(text="done") in out


async def test_a_discarded_parked_agent_is_closed() -> None:
    closed: list[bool] = []

    async def parks(ctx: TurnContext) -> AsyncIterator[Event]:
        try:
            yield InteractionRequest(id="q", kind="user_input", payload={})
            yield Done(stop_reason="paused")
        finally:
            closed.append(True)

    ws = sessions()
    await run(ws, parks, [user("hi")])
    assert closed == [] and len(ws.pool) == 1
    ws.pool.clear()
    for _ in range(5):
        if closed:
            break
        await asyncio.sleep(0)
    assert closed == [True]
