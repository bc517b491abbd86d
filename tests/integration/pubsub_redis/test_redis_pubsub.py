"""``RedisPubSub`` against a real Redis server: frames cross processes' hubs in order, readers
are counted per channel, and a reader that falls behind is cut off rather than shown a gap."""

from __future__ import annotations

import uuid

import anyio
import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from turnwire.conversations.pubsub import SubscriberOverflow
from turnwire.conversations.redis_pubsub import PREFIX, RedisPubSub

pytestmark = pytest.mark.anyio


async def _numsub(url: str, topic: str) -> int:
    client = aioredis.Redis.from_url(url)
    try:
        return dict(await client.pubsub_numsub(PREFIX + topic))[(PREFIX + topic).encode()]
    finally:
        await client.aclose()


async def test_frames_published_on_one_hub_reach_readers_of_another_in_order(redis_url: str) -> None:
    left, right = RedisPubSub(redis_url), RedisPubSub(redis_url)
    await left.start()
    await right.start()
    topic = uuid.uuid4().hex
    try:
        first, second = right.subscribe(topic), right.subscribe(topic)
        await first.ready()
        await second.ready()
        assert await _numsub(redis_url, topic) == 1  # one channel subscription serves both readers
        frames = [{"type": "delta", "index": 0, "n": i} for i in range(2000)]
        for frame in frames:
            left.publish(topic, frame)
        with anyio.fail_after(10):
            got_first = [await first.__anext__() for _ in frames]
            got_second = [await second.__anext__() for _ in frames]
        assert got_first == frames and got_second == frames
        left.publish("another-" + topic, {"type": "x"})  # other topics do not leak in
        left.publish(topic, {"type": "last"})
        with anyio.fail_after(5):
            assert await first.__anext__() == {"type": "last"}
        await first.aclose()
        assert await _numsub(redis_url, topic) == 1
        await second.aclose()
        with anyio.fail_after(5):
            while await _numsub(redis_url, topic):
                await anyio.sleep(0.02)
    finally:
        await left.close()
        await right.close()


async def test_a_reader_too_far_behind_gets_subscriber_overflow(redis_url: str) -> None:
    hub = RedisPubSub(redis_url, backlog=10)
    await hub.start()
    topic = uuid.uuid4().hex
    try:
        slow = hub.subscribe(topic)
        await slow.ready()
        for i in range(50):
            hub.publish(topic, {"n": i})
        with anyio.fail_after(5):
            while not slow.overflowed:
                await anyio.sleep(0.01)
        with pytest.raises(SubscriberOverflow):
            await slow.__anext__()
    finally:
        await hub.close()


async def test_an_unreachable_redis_fails_at_start() -> None:
    hub = RedisPubSub("redis://127.0.0.1:1/0")
    with pytest.raises(RedisConnectionError):
        await hub.start()
    await hub.close()
