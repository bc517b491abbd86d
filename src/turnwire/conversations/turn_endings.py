"""Turns of this process that have sent their last chunk but are not stored yet, by task.

The client may already be sending its next message: ``settled`` lets the next turn wait for the
store to hold the one before it.
"""

from __future__ import annotations

import asyncio
from typing import Final

SETTLE_SECONDS: Final = 10.0
_ending: dict[str, set[asyncio.Future[None]]] = {}


async def settled(task_id: str, timeout: float = SETTLE_SECONDS) -> bool:
    """Wait (at most ``timeout``) until this process's turns on ``task_id`` that already sent their
    last chunk are stored. True if there were any: what was read of the task before is stale.

    A chat client acts on a turn's ``error`` chunk at once (the AI SDK throws there and reads no
    further) while the agent may still be winding down and the recorder writes beside the
    stream; the next turn must plan against the store with that turn in it."""
    pending = _ending.get(task_id)
    if not pending:
        return False
    await asyncio.wait(list(pending), timeout=timeout)
    return True


def begin_ending(task_id: str) -> asyncio.Future[None]:
    """A turn on ``task_id`` sent its last chunk: ``settled`` waits for the returned future."""
    ending = asyncio.get_running_loop().create_future()
    _ending.setdefault(task_id, set()).add(ending)
    return ending


def end_ending(task_id: str, ending: asyncio.Future[None]) -> None:
    """The turn of ``ending`` is stored (or gave up storing)."""
    ending.set_result(None)
    pending = _ending.get(task_id)
    if pending is not None:
        pending.discard(ending)
        if not pending:
            del _ending[task_id]
