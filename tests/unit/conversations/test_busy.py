"""``ConversationClaims`` on one process: one claim per conversation, waiters woken on release,
and a claim no turn took over frees itself."""

from __future__ import annotations

import asyncio

import pytest

from turnwire.conversations import busy
from turnwire.conversations.busy import Claim, ConversationClaims

pytestmark = pytest.mark.anyio


async def test_a_claimed_conversation_names_its_turn_to_the_next() -> None:
    claims = ConversationClaims()
    first = await claims.acquire("chat", "turn-1")
    assert isinstance(first, Claim)
    assert await claims.acquire("chat", "turn-2") == "turn-1"
    assert isinstance(await claims.acquire("other", "turn-3"), Claim)
    assert await claims.holder("chat") == "turn-1"
    await first.release()
    assert await claims.holder("chat") is None
    assert isinstance(await claims.acquire("chat", "turn-2"), Claim)


async def test_a_waiter_wakes_when_the_claim_is_released() -> None:
    claims = ConversationClaims()
    claim = await claims.acquire("chat", "turn-1")
    assert isinstance(claim, Claim)
    assert await claims.wait_free("chat", 0.05) is False
    waiting = asyncio.create_task(claims.wait_free("chat", None))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    await claim.release()
    assert await asyncio.wait_for(waiting, 1) is True


async def test_a_claim_never_handed_to_a_turn_frees_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(busy, "HANDOFF", 0.05)
    claims = ConversationClaims()
    held = await claims.acquire("held", "turn-1")
    dropped = await claims.acquire("dropped", "turn-2")
    assert isinstance(held, Claim) and isinstance(dropped, Claim)
    held.hold()
    assert await claims.wait_free("dropped", 1) is True
    assert await claims.holder("held") == "turn-1"
    await held.release()


async def test_releasing_twice_frees_a_later_claim_of_no_one() -> None:
    claims = ConversationClaims()
    first = await claims.acquire("chat", "turn-1")
    assert isinstance(first, Claim)
    await first.release()
    second = await claims.acquire("chat", "turn-2")
    await first.release()  # the old turn's second release must not free the new claim
    assert await claims.holder("chat") == "turn-2"
    assert isinstance(second, Claim)
    await second.release()
