"""``RedisTurnLogs`` against a real Redis server: a turn followed from another process is followed
to its end however long it is silent, a turn whose worker died stops being live and its followers
learn it, and a Redis restart loses no chunk of a running turn and no registration of a new one."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator

import anyio
import pytest
import redis.asyncio as aioredis

from restartable import RedisProcess
from turnwire.conversations.redis_pubsub import client_for
from turnwire.conversations.redis_turnlogs import RedisTurnLogs
from turnwire.runtime.live import TurnLost

pytestmark = [pytest.mark.anyio, pytest.mark.redis]


@pytest.fixture
def own_redis() -> Iterator[RedisProcess]:
    with RedisProcess() as redis:
        yield redis


async def _collect(follow: AsyncIterator[bytes | None], into: list[bytes]) -> None:
    async for data in follow:
        if data is not None:
            into.append(data)


async def _until(predicate, timeout: float) -> None:  # type: ignore[no-untyped-def]
    with anyio.fail_after(timeout):
        while not await predicate():
            await anyio.sleep(0.05)


async def test_a_turn_silent_longer_than_the_socket_timeout_is_followed_to_its_end(redis_url: str) -> None:
    # Before: the follower's XREAD blocked 30 s on a client whose socket timeout is 5 s, and the
    # client cut the read (and the resumed stream) at 5 s. The reader has that default timeout.
    writer_client, reader_client = client_for(redis_url), aioredis.Redis.from_url(redis_url)
    writer, reader = RedisTurnLogs(writer_client), RedisTurnLogs(reader_client)
    key, turn = uuid.uuid4().hex, uuid.uuid4().hex
    got: list[bytes] = []
    try:
        writer.open(key, turn, "vercel/sse")
        writer.append(key, turn, b"first")
        await _until(lambda: reader.running(key), 5)
        follower = asyncio.create_task(_collect(reader.follow(turn, None), got))
        await asyncio.sleep(6.5)  # silent for longer than redis-py's default socket timeout
        assert not follower.done(), "the follower ended while the turn was silent"
        writer.append(key, turn, b"second")
        writer.close(key, turn)
        with anyio.fail_after(5):
            await follower
        assert got == [b"first", b"second"]
        assert await reader.running(key) is None
    finally:
        await writer.aclose()
        await writer_client.aclose()
        await reader_client.aclose()


async def test_the_turn_of_a_dead_worker_stops_being_live_and_its_followers_learn_it(redis_url: str) -> None:
    writer_client, reader_client = client_for(redis_url), client_for(redis_url)
    writer = RedisTurnLogs(writer_client, renew_every=0.3, live_ttl=1.0)
    reader = RedisTurnLogs(reader_client, lost_grace=1.0)
    key, turn = uuid.uuid4().hex, uuid.uuid4().hex
    got: list[bytes] = []
    try:
        writer.open(key, turn, "vercel/sse")
        writer.append(key, turn, b"said")
        await _until(lambda: reader.running(key), 5)
        await asyncio.sleep(1.5)  # renewed beyond its first lease while the worker lives
        assert await reader.running(key) == (turn, "vercel/sse")
        follower = asyncio.create_task(_collect(reader.follow(turn, 0.2), got))
        await writer.aclose()  # the worker dies: nothing renews, nothing ends the log
        with anyio.fail_after(6):
            with pytest.raises(TurnLost):
                await follower
        assert got == [b"said"]
        assert await reader.running(key) is None
    finally:
        await writer.aclose()
        await writer_client.aclose()
        await reader_client.aclose()


async def test_a_redis_restart_loses_no_chunk_and_no_registration(own_redis: RedisProcess) -> None:
    writer_client, reader_client = client_for(own_redis.url), client_for(own_redis.url)
    writer = RedisTurnLogs(writer_client, renew_every=0.3, live_ttl=2.0)
    reader = RedisTurnLogs(reader_client, lost_grace=4.0)
    key, turn = uuid.uuid4().hex, uuid.uuid4().hex
    got: list[bytes] = []
    try:
        writer.open(key, turn, "vercel/sse")
        for i in range(5):
            writer.append(key, turn, b"%d" % i)
        await _until(lambda: reader.running(key), 5)
        follower = asyncio.create_task(_collect(reader.follow(turn, 0.2), got))
        await _until(lambda: _true(len(got) == 5), 5)
        own_redis.kill()
        for i in range(5, 8):  # said while Redis is down
            writer.append(key, turn, b"%d" % i)
        await asyncio.sleep(0.5)
        own_redis.start()  # empty: every key and log is gone
        # Turns started before the restart are registered again, their logs rewritten.
        await _until(lambda: reader.running(key), 5)
        # The first turn after the restart is registered too (its first command is not lost).
        second_key, second = uuid.uuid4().hex, uuid.uuid4().hex
        writer.open(second_key, second, "agenta/sse")
        await _until(lambda: reader.running(second_key), 5)
        for i in range(8, 10):
            writer.append(key, turn, b"%d" % i)
        writer.close(key, turn)
        with anyio.fail_after(10):
            await follower
        assert got == [b"%d" % i for i in range(10)]  # each once, in order
        assert await reader.running(key) is None
    finally:
        await writer.aclose()
        await writer_client.aclose()
        await reader_client.aclose()


async def _true(value: bool) -> bool:
    return value


async def test_a_chunk_redis_took_just_before_its_restart_still_reaches_a_slow_follower(
    own_redis: RedisProcess,
) -> None:
    # The follower has read chunks 0-4; chunk 5 reaches Redis while it is not reading; Redis
    # restarts empty; chunks 6 and 7 come. The log must not restart at 6 (a gap the follower
    # cannot see): the writer notices the lost log and writes it anew; the follower waits for it.
    writer_client, reader_client = client_for(own_redis.url), client_for(own_redis.url)
    writer = RedisTurnLogs(writer_client, renew_every=30)  # no renewal to repair it by chance
    reader = RedisTurnLogs(reader_client, lost_grace=5.0)
    key, turn = uuid.uuid4().hex, uuid.uuid4().hex
    try:
        writer.open(key, turn, "vercel/sse")
        for i in range(5):
            writer.append(key, turn, b"%d" % i)
        follow = reader.follow(turn, None)
        with anyio.fail_after(5):
            got = [await follow.__anext__() for _ in range(5)]
        writer.append(key, turn, b"5")
        await asyncio.sleep(0.3)  # written to the Redis about to die
        own_redis.kill()
        own_redis.start()
        for i in (6, 7):
            writer.append(key, turn, b"%d" % i)
        writer.close(key, turn)
        with anyio.fail_after(10):
            got += [data async for data in follow]
        assert got == [b"%d" % i for i in range(8)]
    finally:
        await writer.aclose()
        await writer_client.aclose()
        await reader_client.aclose()
