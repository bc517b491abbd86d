"""Message ids and timestamps of the store.

Timestamps are integers of microseconds since the Unix epoch (UTC) inside the store: exact,
cheap to compare and sort on every database. They leave the store as ISO 8601 with ``+00:00``.
"""

from __future__ import annotations

import itertools
import os
import time
from datetime import UTC, datetime, timedelta
from typing import Any

from turnwire.errors import InputError, Loc
from turnwire.store.limits import MAX_TIME, MIN_TIME

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_US = timedelta(microseconds=1)
MS = 1000
"""One millisecond in store time units."""

_process = os.urandom(5).hex()
_counter = itertools.count(int.from_bytes(os.urandom(3), "big"))


_second: tuple[int, str] = (-1, "")
"""The last second an id was made in, and the ids' prefix for it (swapped whole: thread-safe)."""


def new_id() -> str:
    """A 24-hex id shaped like a Mongo ObjectId: seconds, per-process random, counter.

    Ids made by one process are strictly increasing within a second and across seconds.
    """
    global _second
    n = next(_counter) & 0xFFFFFF  # itertools.count is atomic under the GIL
    now = int(time.time())
    second = _second
    if second[0] != now:
        second = _second = (now, f"{now & 0xFFFFFFFF:08x}{_process}")
    return f"{second[1]}{n:06x}"


def new_ids(n: int) -> list[str]:
    """``n`` ids as ``new_id`` makes them, the time read once for the whole batch."""
    prefix = f"{int(time.time()) & 0xFFFFFFFF:08x}{_process}"
    counter = _counter
    return [f"{prefix}{next(counter) & 0xFFFFFF:06x}" for _ in range(n)]


def now_us() -> int:
    return time.time_ns() // 1000


_prefixes: dict[int, str] = {}
"""Second -> its ISO prefix: a batch's stamps fall in a few seconds (created and updated apart)."""
_millis: dict[int, str] = {}
"""Millisecond -> its ISO prefix down to the millisecond: a batch's messages are stamped 1 ms
apart, and an update of them lands in the same milliseconds (``updated_at + 1`` µs), so a batch
update formats its 2,000 stamps mostly from here."""
_MS3 = [f".{i:03d}" for i in range(1000)]
_US3 = [f"{i:03d}+00:00" for i in range(1000)]


def to_iso(us: int | None) -> str | None:
    """Store time -> timezone-aware ISO 8601 UTC with microseconds."""
    if us is None:
        return None
    ms, micro = divmod(us, 1000)
    prefix = _millis.get(ms)
    if prefix is None:
        prefix = _ms_prefix(ms)
    return prefix + _US3[micro]


def _ms_prefix(ms: int) -> str:
    second, milli = divmod(ms, 1000)
    head = _prefixes.get(second)
    if head is None:
        if len(_prefixes) >= 4096:  # bounded: old seconds are rarely asked for again
            _prefixes.clear()
        head = _prefixes[second] = (_EPOCH + timedelta(seconds=second)).isoformat()[:19]
    if len(_millis) >= 16384:  # bounded (about 2 MB): old milliseconds are rarely asked for again
        _millis.clear()
    prefix = _millis[ms] = head + _MS3[milli]
    return prefix


def parse_time(value: Any, loc: Loc) -> int:
    """ISO 8601 (aware, or naive meaning UTC; ``Z`` accepted) -> store time. Else ``InputError``,
    also for a time outside ``limits.MIN_TIME`` .. ``limits.MAX_TIME``."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value)
        except ValueError:
            raise InputError("must be an ISO 8601 date-time", loc=loc, type="type") from None
    else:
        raise InputError("must be an ISO 8601 date-time string", loc=loc, type="type")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    if not MIN_TIME <= dt < MAX_TIME:
        # The store derives later stamps from this one (a batch's spacing, ``updated_at``), which
        # must stay inside ``datetime``'s range for every later write of the task.
        span = f"from {MIN_TIME.isoformat()} to before {MAX_TIME.isoformat()}"
        raise InputError(f"must be {span}", loc=loc, type="out_of_range")
    return (dt - _EPOCH) // _US
