"""with_keepalive: silence marks without losing, reordering or leaking the pending pull."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from turnwire.runtime.keepalive import with_keepalive

pytestmark = pytest.mark.anyio


async def _timed(items: list[tuple[float, str]], log: list[str]) -> AsyncIterator[str]:
    try:
        for delay, item in items:
            await asyncio.sleep(delay)
            yield item
        log.append("finished")
    except asyncio.CancelledError:
        log.append("cancelled")
        raise
    finally:
        log.append("closed")


async def test_marks_silence_and_keeps_every_item_in_order() -> None:
    log: list[str] = []
    out = [x async for x in with_keepalive(_timed([(0, "a"), (0.35, "b"), (0, "c")], log), 0.1)]
    assert [x for x in out if x is not None] == ["a", "b", "c"]
    # 0.35 s of silence at 0.1 s intervals: three marks, all between "a" and "b"
    assert out[0] == "a" and out[-2:] == ["b", "c"]
    assert out.count(None) == 3
    assert log == ["finished", "closed"]


async def test_no_marks_without_silence() -> None:
    log: list[str] = []
    out = [x async for x in with_keepalive(_timed([(0, "a"), (0.01, "b")], log), 0.2)]
    assert out == ["a", "b"]


@pytest.mark.parametrize("interval", [None, 0, -1])
async def test_off_when_interval_is_not_positive(interval: float | None) -> None:
    log: list[str] = []
    out = [x async for x in with_keepalive(_timed([(0, "a"), (0.15, "b")], log), interval)]
    assert out == ["a", "b"]


async def test_closing_during_silence_cancels_the_source() -> None:
    log: list[str] = []
    stream = with_keepalive(_timed([(0, "a"), (30, "never")], log), 0.05)
    assert await anext(stream) == "a"
    assert await anext(stream) is None  # silence: the source is mid-sleep in the pending pull
    await stream.aclose()
    await asyncio.sleep(0.01)
    assert log == ["cancelled", "closed"]


async def test_closing_between_items_closes_the_source() -> None:
    log: list[str] = []
    stream = with_keepalive(_timed([(0, "a"), (0, "b")], log), 5)
    assert await anext(stream) == "a"
    await stream.aclose()
    assert log == ["closed"]


async def test_a_failing_source_raises_its_error_after_the_items_before_it() -> None:
    async def failing() -> AsyncIterator[str]:
        yield "a"
        await asyncio.sleep(0.01)
        raise ValueError("boom")

    out: list[str | None] = []
    with pytest.raises(ValueError, match="boom"):
        async for x in with_keepalive(failing(), 5):
            out.append(x)
    assert out == ["a"]


async def test_the_source_is_never_asked_for_an_item_before_the_last_was_taken() -> None:
    asked: list[int] = []

    async def counted() -> AsyncIterator[int]:
        for i in range(3):
            asked.append(i)
            yield i

    stream = with_keepalive(counted(), 5)
    assert await anext(stream) == 0
    await asyncio.sleep(0.02)  # the puller had every chance to run ahead
    assert asked == [0]
    assert await anext(stream) == 1
    await stream.aclose()
    assert asked == [0, 1]
