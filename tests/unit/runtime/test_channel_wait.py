"""Channel.wait: a timed wait for the next item that takes nothing and loses nothing."""

from __future__ import annotations

import asyncio

import pytest

from turnwire.runtime.channel import END, Channel

pytestmark = pytest.mark.anyio


async def test_wait_is_true_at_once_when_an_item_is_held() -> None:
    chan = Channel()
    await chan.put("a")
    assert await chan.wait(0.01) is True
    assert chan.take() == "a"


async def test_wait_times_out_false_and_the_next_put_is_still_delivered() -> None:
    chan = Channel()
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    assert await chan.wait(0.05) is False
    assert loop.time() - t0 >= 0.05
    await chan.put("a")
    assert await chan.wait(0.05) is True
    assert chan.take() == "a"


async def test_a_put_during_the_wait_ends_it_early() -> None:
    chan = Channel()
    loop = asyncio.get_running_loop()
    loop.call_later(0.02, lambda: loop.create_task(chan.put("a")))
    t0 = loop.time()
    assert await chan.wait(5) is True
    assert loop.time() - t0 < 1
    assert chan.take() == "a"


async def test_close_during_the_wait_ends_it_with_the_end_marker() -> None:
    chan = Channel()
    asyncio.get_running_loop().call_later(0.02, chan.close)
    assert await chan.wait(5) is True
    assert chan.take() is END


async def test_each_wait_gets_its_full_timeout_after_earlier_waits_were_answered() -> None:
    # The timer armed for an answered wait must not cut a later wait short.
    chan = Channel()
    loop = asyncio.get_running_loop()
    for _ in range(3):
        loop.call_later(0.03, lambda: loop.create_task(chan.put("x")))
        assert await chan.wait(0.2) is True
        chan.take()
    t0 = loop.time()
    assert await chan.wait(0.2) is False
    assert loop.time() - t0 >= 0.2


async def test_cancelling_a_wait_leaves_the_channel_usable() -> None:
    chan = Channel()
    waiter = asyncio.ensure_future(chan.wait(5))
    await asyncio.sleep(0.01)
    waiter.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiter
    await chan.put("a")
    assert await chan.get() == "a"
