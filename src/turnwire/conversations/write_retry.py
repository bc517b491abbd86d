"""Retrying a turn's last store write, and what a turn whose write failed for good raises.

The recorder's closing write (``TurnRecorder._store_rest``) stores what the turn said. A
transient failure (``store.transient``: the database restarted, was busy, dropped a connection)
is retried a few times, ``RETRY_DELAYS`` apart — a few seconds at most, during which the stream's
last frames wait. A write that still fails raises ``TurnNotStored``: the turn's stream then ends
with its format's error frame, so the client learns that what it received is not in the
conversation.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Final, TypeVar

from turnwire.errors import TurnwireError
from turnwire.store.transient import is_transient

T = TypeVar("T")
log = logging.getLogger("turnwire.conversations.recording")

RETRY_DELAYS: Final = (0.1, 0.4, 1.0, 2.0)
"""Seconds before each retry of a transient failure: 3.5 s in all, then the write is given up."""


class TurnNotStored(TurnwireError):
    """A turn's messages could not be written: the turn ran, the store does not hold it."""

    def __init__(self, task_id: str) -> None:
        self.task_id = task_id
        super().__init__(
            "the turn was not stored: the conversation's store could not be written, so what this "
            "answer said is not in the conversation"
        )


async def write_with_retries(write: Callable[[], Awaitable[T]], task_id: str, what: str) -> T:
    """``write()``, retried on transient failures; ``TurnNotStored`` (from the last failure) when it
    never succeeds or fails for good."""
    for attempt, delay in enumerate((*RETRY_DELAYS, None)):
        try:
            written = await write()
            if attempt:
                log.warning("%s of task %s written after %d retries", what, task_id, attempt)
            return written
        except Exception as exc:
            if delay is None or not is_transient(exc):
                # The reader of the turn logs the failure with its traceback (and its request id).
                log.warning(
                    "giving up storing %s of task %s after %d tries: %r", what, task_id, attempt + 1, exc
                )
                raise TurnNotStored(task_id) from exc
            log.warning("storing %s of task %s failed (%s); retrying in %.1f s", what, task_id, exc, delay)
        await asyncio.sleep(delay)
    raise AssertionError("unreachable: the last try returns or raises")
