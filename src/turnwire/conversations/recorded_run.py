"""A ``TurnRun`` whose events a ``TurnRecorder`` tracks as they are delivered."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from turnwire.model import Event

if TYPE_CHECKING:
    from turnwire.conversations.recording import TurnRecorder


class RecordedRun:
    """A ``TurnRun`` seen through a ``TurnRecorder``: the same events, ``pull`` and
    ``stop_reason``, each event tracked by the recorder as it is delivered."""

    __slots__ = ("_begun", "_ended", "_on_event", "_pull", "_recorder", "_run")

    def __init__(self, recorder: TurnRecorder, run: Any) -> None:
        self._recorder = recorder
        self._run = run
        self._pull = run.pull
        self._on_event = recorder._on_event
        self._begun = self._ended = False

    @property
    def stop_reason(self) -> str | None:
        return self._run.stop_reason

    def __aiter__(self) -> RecordedRun:
        return self

    def __anext__(self) -> Any:
        return self.pull(None)

    async def pull(self, timeout: float | None) -> Event | None:
        """As ``TurnRun.pull``; the recording ends when the run does."""
        if not self._begun:
            self._begun = True
            await self._recorder.begin()
        try:
            event = await self._pull(timeout)
        except StopAsyncIteration:
            await self.aclose()
            raise
        if event is not None:
            self._on_event(event)
        return event

    def cancel(self) -> None:
        """As ``TurnRun.cancel``: the agent stops and the stream ends ``cancelled``, recorded."""
        self._run.cancel()

    async def aclose(self) -> None:
        if self._ended:
            return
        self._ended = True
        if not self._begun:
            self._begun = True
            await self._recorder.begin()
        await self._recorder.end(self._run)


def is_run(events: Any) -> bool:
    """``isinstance(events, runtime.runner.EventRun)`` without the protocol check's cost (~20 µs
    a call: it looks the protocol's members up anew every time): the same members, tested."""
    return (
        hasattr(events, "pull")
        and hasattr(events, "stop_reason")
        and hasattr(events, "aclose")
        and hasattr(events, "__anext__")
        and hasattr(events, "__aiter__")
    )
