"""Conversation claims shared through a real Redis: two processes' claim sets see one claim per
conversation; a claim whose worker died expires; Redis unreachable falls back to local claims."""

from __future__ import annotations

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from services import free_port
from turnwire.conversations import busy
from turnwire.conversations.busy import Claim, ConversationClaims

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


async def test_two_workers_see_one_claim_per_conversation(redis_url: str) -> None:
    a_client, b_client = aioredis.Redis.from_url(redis_url), aioredis.Redis.from_url(redis_url)
    a, b = ConversationClaims(a_client), ConversationClaims(b_client)
    key = uuid.uuid4().hex
    try:
        claim = await a.acquire(key, "turn-a")
        assert isinstance(claim, Claim)
        assert await b.acquire(key, "turn-b") == "turn-a"
        assert await b.holder(key) == "turn-a"
        waiting = asyncio.create_task(b.wait_free(key, 5))
        await asyncio.sleep(0.1)
        assert not waiting.done()
        await claim.release()
        assert await waiting is True
        mine = await b.acquire(key, "turn-b")
        assert isinstance(mine, Claim)
        assert await a.acquire(key, "turn-c") == "turn-b"
        await mine.release()
    finally:
        await a_client.aclose()
        await b_client.aclose()


async def test_a_claim_whose_worker_died_expires(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(busy, "TTL", 0.5)
    monkeypatch.setattr(busy, "RENEW", 0.1)
    a_client, b_client = aioredis.Redis.from_url(redis_url), aioredis.Redis.from_url(redis_url)
    key = uuid.uuid4().hex
    try:
        living = ConversationClaims(a_client)
        claim = await living.acquire(key, "turn-a")
        assert isinstance(claim, Claim)
        claim.hold()
        await asyncio.sleep(1.0)  # renewed while its turn runs: still held past its expiry
        other = ConversationClaims(b_client)
        assert await other.holder(key) == "turn-a"
        assert claim._renewer is not None
        claim._renewer.cancel()  # the worker dies: nobody renews, nobody releases
        assert await other.wait_free(key, 3) is True
        assert isinstance(await other.acquire(key, "turn-b"), Claim)
    finally:
        await a_client.aclose()
        await b_client.aclose()


async def test_redis_unreachable_falls_back_to_this_workers_claims() -> None:
    client = aioredis.Redis(host="127.0.0.1", port=free_port(), socket_connect_timeout=0.2)
    claims = ConversationClaims(client)
    try:
        claim = await claims.acquire("chat", "turn-1")
        assert isinstance(claim, Claim) and not claim.remote
        assert await claims.acquire("chat", "turn-2") == "turn-1"
        await claim.release()
        assert await claims.holder("chat") is None
    finally:
        await client.aclose()
