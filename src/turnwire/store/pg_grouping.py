"""Calls grouped into one PostgreSQL statement: the queue both grouped writers of the store share.

One statement is in flight at a time; the calls queued meanwhile go out together in the next one,
each key at most once per statement (a second call for the same key waits for the next statement,
so it sees what the first did) and at most ``max_group`` calls. A call alone in its group runs
alone (``alone``); if a grouped statement fails as a whole, nothing of it was written and each of
its calls runs again alone. Every call keeps its own outcome, and a caller that is cancelled does
not take its call out of the statement it is in.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable
from typing import Generic, TypeVar

Call = TypeVar("Call")
Result = TypeVar("Result")


class Grouped(Generic[Call, Result]):
    """Subclasses say how a call is keyed, run alone, and run with others (``together``: one
    outcome per call, in order, an exception instance for a call that failed alone)."""

    max_group = 200
    wait_one_turn = False
    """Let the calls arriving in the same loop turn queue before the first statement goes out."""

    def __init__(self) -> None:
        self._queue: list[tuple[Call, asyncio.Future[Result]]] = []
        self._runner: asyncio.Task[None] | None = None

    def key(self, call: Call) -> Hashable:
        raise NotImplementedError

    async def alone(self, call: Call) -> Result:
        raise NotImplementedError

    async def together(self, calls: list[Call]) -> list[Result | BaseException]:
        raise NotImplementedError

    async def submit(self, call: Call) -> Result:
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Result] = loop.create_future()
        self._queue.append((call, fut))
        if self._runner is None:
            self._runner = loop.create_task(self._drain())
        try:
            return await asyncio.shield(fut)
        except asyncio.CancelledError:
            # The call still goes out with its group; its outcome is nobody's to read now.
            fut.add_done_callback(lambda f: f.cancelled() or f.exception())
            raise

    async def _drain(self) -> None:
        try:
            if self.wait_one_turn:
                await asyncio.sleep(0)
            while self._queue:
                batch: list[tuple[Call, asyncio.Future[Result]]] = []
                later: list[tuple[Call, asyncio.Future[Result]]] = []
                keys: set[Hashable] = set()
                for queued in self._queue:
                    key = self.key(queued[0])
                    if key in keys or len(batch) >= self.max_group:
                        later.append(queued)
                    else:
                        keys.add(key)
                        batch.append(queued)
                self._queue = later
                if len(batch) == 1:
                    await self._one(*batch[0])
                else:
                    await self._group(batch)
        finally:
            self._runner = None

    async def _one(self, call: Call, fut: asyncio.Future[Result]) -> None:
        try:
            result = await self.alone(call)
        except Exception as exc:
            _settle(fut, exc)
        else:
            _settle(fut, result)

    async def _group(self, batch: list[tuple[Call, asyncio.Future[Result]]]) -> None:
        try:
            outcomes = await self.together([call for call, _ in batch])
        except Exception:
            for call, fut in batch:  # nothing of the statement was written: each again, alone
                await self._one(call, fut)
            return
        for (_, fut), outcome in zip(batch, outcomes, strict=True):
            _settle(fut, outcome)


def _settle(fut: asyncio.Future[Result], outcome: Result | BaseException) -> None:
    if fut.done():
        return
    if isinstance(outcome, BaseException):
        fut.set_exception(outcome)
    else:
        fut.set_result(outcome)
