"""``LocalPubSub``: in-process fan-out of a task's live frames.

Every frame read here was published before the read starts, so each ``__anext__`` returns at once;
a test that expects "nothing else queued" publishes a sentinel and checks it comes next.
"""

from __future__ import annotations

import pytest

from turnwire.conversations.pubsub import DEFAULT_BACKLOG, LocalPubSub, PubSub, SubscriberOverflow

pytestmark = pytest.mark.anyio

SENTINEL = {"type": "sentinel"}


def _frames(n: int, topic: str = "t") -> list[dict]:
    return [{"type": "delta", "index": 0, "topic": topic, "n": i} for i in range(n)]


def test_local_pubsub_implements_the_pubsub_protocol() -> None:
    assert isinstance(LocalPubSub(), PubSub)


async def test_a_frame_published_right_after_subscribe_returns_is_delivered() -> None:
    hub = LocalPubSub()
    sub = hub.subscribe("task-1")
    # No await between subscribe and publish: the subscription must already be registered.
    hub.publish("task-1", {"type": "start", "index": 0})
    assert await sub.__anext__() == {"type": "start", "index": 0}


async def test_frames_published_before_subscribe_are_not_delivered() -> None:
    hub = LocalPubSub()
    hub.publish("t", {"type": "early"})
    sub = hub.subscribe("t")
    hub.publish("t", SENTINEL)
    assert await sub.__anext__() == SENTINEL


async def test_frames_arrive_in_publish_order() -> None:
    hub = LocalPubSub()
    sub = hub.subscribe("t")
    frames = _frames(500)
    for frame in frames:
        hub.publish("t", frame)
    assert [await sub.__anext__() for _ in frames] == frames


async def test_async_for_iterates_the_subscription() -> None:
    hub = LocalPubSub()
    sub = hub.subscribe("t")
    for frame in _frames(3):
        hub.publish("t", frame)
    got = []
    async for frame in sub:
        got.append(frame["n"])
        if len(got) == 3:
            break
    assert got == [0, 1, 2]


async def test_every_subscriber_of_a_topic_gets_every_frame() -> None:
    hub = LocalPubSub()
    subs = [hub.subscribe("t") for _ in range(3)]
    frames = _frames(20)
    for frame in frames:
        hub.publish("t", frame)
    for sub in subs:
        assert [await sub.__anext__() for _ in frames] == frames


async def test_a_subscriber_sees_only_its_own_topic() -> None:
    hub = LocalPubSub()
    a, b = hub.subscribe("a"), hub.subscribe("b")
    hub.publish("b", {"type": "for-b"})
    hub.publish("a", {"type": "for-a"})
    hub.publish("ab", {"type": "for-ab"})  # no prefix matching either
    hub.publish("a", SENTINEL)
    hub.publish("b", SENTINEL)
    assert [await a.__anext__(), await a.__anext__()] == [{"type": "for-a"}, SENTINEL]
    assert [await b.__anext__(), await b.__anext__()] == [{"type": "for-b"}, SENTINEL]


async def test_an_empty_frame_is_delivered_as_a_frame_not_taken_for_the_cut_off_marker() -> None:
    hub = LocalPubSub()
    sub = hub.subscribe("t")
    hub.publish("t", {})
    hub.publish("t", SENTINEL)
    assert [await sub.__anext__(), await sub.__anext__()] == [{}, SENTINEL]


def test_publish_to_a_topic_without_subscribers_is_a_no_op() -> None:
    hub = LocalPubSub()
    hub.publish("nobody", {"type": "x"})
    assert hub.subscribers("nobody") == 0


async def test_a_reader_exactly_its_backlog_behind_still_reads_everything() -> None:
    hub = LocalPubSub(backlog=3)
    sub = hub.subscribe("t")
    frames = _frames(3)
    for frame in frames:
        hub.publish("t", frame)
    assert not sub.overflowed
    assert [await sub.__anext__() for _ in frames] == frames


async def test_a_reader_one_frame_past_its_backlog_gets_subscriber_overflow() -> None:
    hub = LocalPubSub(backlog=3)
    sub = hub.subscribe("task-9")
    for frame in _frames(4):
        hub.publish("task-9", frame)
    assert sub.overflowed
    # The queued frames are discarded: a reader must never see a stream with a gap in it.
    with pytest.raises(SubscriberOverflow, match="'task-9'"):
        await sub.__anext__()


async def test_frames_published_after_the_cut_do_not_reach_the_cut_reader() -> None:
    hub = LocalPubSub(backlog=2)
    sub = hub.subscribe("t")
    for frame in _frames(3):
        hub.publish("t", frame)
    for frame in _frames(5):
        hub.publish("t", frame)
    with pytest.raises(SubscriberOverflow):
        await sub.__anext__()


async def test_a_slow_reader_neither_blocks_the_publisher_nor_the_other_readers() -> None:
    hub = LocalPubSub(backlog=10)
    slow, fast = hub.subscribe("t"), hub.subscribe("t")
    got = []
    for frame in _frames(100):
        # publish is synchronous and returns at once whatever the slow reader's backlog.
        assert hub.publish("t", frame) is None
        got.append(await fast.__anext__())
    assert got == _frames(100)
    assert slow.overflowed and not fast.overflowed
    with pytest.raises(SubscriberOverflow):
        await slow.__anext__()


async def test_the_default_backlog_is_4096_frames() -> None:
    assert DEFAULT_BACKLOG == 4096
    hub = LocalPubSub()
    assert hub.backlog == 4096
    keeps_up, falls_behind = hub.subscribe("a"), hub.subscribe("b")
    for frame in _frames(4096):
        hub.publish("a", frame)
    for frame in _frames(4097):
        hub.publish("b", frame)
    assert not keeps_up.overflowed
    assert falls_behind.overflowed
    assert (await keeps_up.__anext__())["n"] == 0


async def test_subscribers_counts_readers_per_topic() -> None:
    hub = LocalPubSub()
    assert hub.subscribers("a") == 0
    a1, a2, b1 = hub.subscribe("a"), hub.subscribe("a"), hub.subscribe("b")
    assert (hub.subscribers("a"), hub.subscribers("b"), hub.subscribers("c")) == (2, 1, 0)
    await a1.aclose()
    assert (hub.subscribers("a"), hub.subscribers("b")) == (1, 1)
    await a2.aclose()
    await b1.aclose()
    assert (hub.subscribers("a"), hub.subscribers("b")) == (0, 0)


async def test_listened_says_whether_a_topic_has_a_reader_now() -> None:
    hub = LocalPubSub()
    assert not hub.listened("a")
    sub = hub.subscribe("a")
    assert hub.listened("a") and not hub.listened("b")
    await sub.aclose()
    assert not hub.listened("a")


async def test_aclose_drops_the_subscriber_and_the_others_keep_reading() -> None:
    hub = LocalPubSub(backlog=1)
    gone, stays = hub.subscribe("t"), hub.subscribe("t")
    await gone.aclose()
    # With backlog 1, two frames would cut ``gone`` off if it still were subscribed.
    hub.publish("t", {"n": 1})
    assert await stays.__anext__() == {"n": 1}
    hub.publish("t", {"n": 2})
    assert await stays.__anext__() == {"n": 2}
    assert not gone.overflowed
    assert hub.subscribers("t") == 1


async def test_aclose_twice_and_after_the_topic_emptied_is_harmless() -> None:
    hub = LocalPubSub()
    sub = hub.subscribe("t")
    await sub.aclose()
    await sub.aclose()
    other = hub.subscribe("t")
    await sub.aclose()  # must not remove ``other``
    assert hub.subscribers("t") == 1
    await other.aclose()
    assert hub.subscribers("t") == 0


async def test_a_slow_reader_cut_off_on_one_topic_leaves_its_other_subscriptions_alone() -> None:
    hub = LocalPubSub(backlog=2)
    busy, quiet = hub.subscribe("busy"), hub.subscribe("quiet")
    for frame in _frames(5, "busy"):
        hub.publish("busy", frame)
    hub.publish("quiet", SENTINEL)
    assert busy.overflowed and not quiet.overflowed
    assert await quiet.__anext__() == SENTINEL
