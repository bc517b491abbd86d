"""``RedisPubSub`` against a real Redis server: frames cross processes' hubs in order, readers
are counted per channel, and a reader that falls behind is cut off rather than shown a gap."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError

from store_databases import fresh_database
from turnwire.conversations.pubsub import SubscriberOverflow
from turnwire.conversations.recording import TurnRecorder
from turnwire.conversations.redis_pubsub import PREFIX, RedisPubSub
from turnwire.model import Event, MessageDelta, MessageEnd, MessageStart
from turnwire.store import SqlStore

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


async def test_a_recorded_turn_reaches_a_reader_of_another_process_with_none_here(
    redis_url: str, tmp_path: Path
) -> None:
    # The recorder builds frames only for a topic someone reads; through Redis a reader may be on
    # another process, so the publishing hub (no reader of its own) still gets every frame.
    store = SqlStore(fresh_database("sqlite", tmp_path, None))
    await store.open()
    left, right = RedisPubSub(redis_url), RedisPubSub(redis_url)
    await left.start()
    await right.start()
    try:
        task = (await store.create_task(name="across"))["id"]
        reader = right.subscribe(task)
        await reader.ready()
        assert left.subscribers(task) == 0
        recorder = TurnRecorder(store, task, left)

        async def turn() -> AsyncIterator[Event]:
            yield MessageStart(id="m")
            yield MessageDelta(id="m", delta="hello")
            yield MessageEnd(id="m")

        [e async for e in recorder.record(turn())]
        with anyio.fail_after(10):
            got = [await reader.__anext__() for _ in range(3)]
        assert [f["type"] for f in got] == ["start", "delta", "done"]
        assert got[1]["delta"] == {"type": "text", "text_delta": "hello"}
        assert got[2]["parent_task_message"] == recorder.finals[0]
        assert got[2]["parent_task_message"]["content"]["content"] == "hello"
        await reader.aclose()
    finally:
        await left.close()
        await right.close()
        await store.close()
