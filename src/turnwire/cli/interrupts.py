"""Ctrl-C while a turn streams, delivered only between two rendering steps.

Python raises KeyboardInterrupt at whatever bytecode runs when SIGINT arrives. Inside rich's
``Live.start``/``stop`` that leaves a live display half set up or half torn down: its refresh thread
keeps redrawing the last line forever, or its render hook stays installed, or the next ``stop`` pops
an empty live stack. While ``shielded()`` runs, a Ctrl-C is held and raised as soon as it ends.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class HeldInterrupts:
    """A SIGINT handler that raises KeyboardInterrupt, except inside ``shielded()`` where it waits."""

    def __init__(self) -> None:
        self._depth = 0
        self._pending = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        if self._depth:
            self._pending = True
        else:
            raise KeyboardInterrupt

    @contextmanager
    def shielded(self) -> Iterator[None]:
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if not self._depth and self._pending:
                self._pending = False
                raise KeyboardInterrupt


@contextmanager
def held_interrupts() -> Iterator[HeldInterrupts]:
    """Install a ``HeldInterrupts`` handler for SIGINT for the block; the previous one afterwards.

    A SIGINT the process was started ignoring (or handled elsewhere) is left as it is."""
    held = HeldInterrupts()
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        yield held
        return
    previous = signal.signal(signal.SIGINT, held)
    try:
        yield held
    finally:
        signal.signal(signal.SIGINT, previous)
