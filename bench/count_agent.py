"""A bench-only agent: the demo agent's ``count to <n>`` without the 50 ms pause between numbers.

Served by workload 4 as ``turnwire serve --agent fast=count_agent:fast_count`` (``bench/`` on the
path) so the server's per-frame throughput is measured rather than the demo's cadence. It yields
exactly the events (and so the bytes) of the demo's ``count to <n>``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

from turnwire.model import Done, Event, MessageDelta, MessageEnd, MessageStart, StopReason, Usage
from turnwire.runtime import TurnContext, user_turns

_COUNT = re.compile(r"count to\s+(\d{1,12})", re.IGNORECASE)


async def fast_count(ctx: TurnContext) -> AsyncIterator[Event]:
    """``count to <n>``: ``n`` one-number messages back to back, then usage and ``end_turn``."""
    text = ctx.last_user_text()
    match = _COUNT.fullmatch(text)
    n = int(match.group(1)) if match else 0
    turn = user_turns(ctx.messages)
    for i in range(1, n + 1):
        mid = f"msg_{turn}_{i}"
        yield MessageStart(id=mid)
        yield MessageDelta(id=mid, delta=str(i))
        yield MessageEnd(id=mid)
    words = len(text.split())
    yield Usage(input=words, output=n, total=words + n)
    yield Done(stop_reason=StopReason.END_TURN)
