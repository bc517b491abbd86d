"""Pausing the cyclic garbage collector around bulk conversions of acyclic data.

Parsing or rendering a long history allocates one object per message and block, all acyclic and
all still reachable when done. Each allocation counts towards a collection, and a collection walks
every tracked object in the process (the request's decoded JSON, but also the server's own
modules): for a 40k-message request in a process the size of a server, collections cost more than
the conversion itself. Reference counting still frees everything; only the cycle hunt waits.
"""

from __future__ import annotations

import gc
from typing import Final

PAUSE_GC_FROM: Final = 512
"""Conversions of this many messages or more run with the cyclic GC paused."""


def pause_gc(n: int) -> bool:
    """Pause the collector for a conversion of ``n`` items; ``True`` when the caller must resume it
    (``gc.enable()`` in a ``finally``). Never resumes what someone else paused."""
    if n >= PAUSE_GC_FROM and gc.isenabled():
        gc.disable()
        return True
    return False
