"""What a recorder keeps of a streamed turn's output messages, and what each event does to them."""

from __future__ import annotations

from typing import Any, Final

from turnwire.formats.agentex.updates import reasoning_content, text_content
from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    Usage,
)
from turnwire.store.clock import new_id

IN_PROGRESS: Final = "IN_PROGRESS"
DONE: Final = "DONE"


class Entry:
    """An output message of a streamed turn: its record's fields, and what is not written yet.

    A streamed message (``text`` True for text, False for reasoning) keeps its deltas as ``pieces``
    until a flush or its end joins them into ``content``; a whole one (``text`` None) is ``DONE``
    from the start. ``record`` and ``final`` are the TaskMessages its frames carry (as it started,
    as it ended), made only when a frame or ``finals`` needs them."""

    __slots__ = (
        "changes",
        "content",
        "created_at",
        "final",
        "id",
        "index",
        "note",
        "parent_id",
        "pieces",
        "record",
        "saved",
        "status",
        "text",
        "updated_at",
    )

    def __init__(
        self,
        index: int,
        content: dict[str, Any],
        text: bool | None,
        status: str,
        stamp: int,
        note: dict[str, Any],
        parent_id: str | None,
    ) -> None:
        self.index = index
        self.id = new_id()
        self.parent_id = parent_id  # the message before it in its branch
        self.content = content
        self.text = text
        self.pieces: list[str] = []
        self.note = note  # what the store keeps beside the content (``formats.agentex.annotations``)
        self.status = status
        self.created_at = self.updated_at = stamp
        self.changes = 1  # its creation
        self.saved = 0  # the version written (0: no row yet)
        self.record: dict[str, Any] | None = None
        self.final: dict[str, Any] | None = None

    def settle(self) -> dict[str, Any]:
        """Join the queued deltas into ``content`` (as ``Accumulator.settle``); returns it."""
        pieces = self.pieces
        content = self.content
        if not pieces:
            return content
        joined = pieces[0] if len(pieces) == 1 else "".join(pieces)
        self.pieces = []
        if self.text:
            content["content"] = (content.get("content") or "") + joined
        else:
            parts = list(content.get("content") or [""])
            parts[0] += joined
            content["content"] = parts
        return content

    def start_content(self) -> dict[str, Any]:
        """The content its first frame carried: empty for a streamed message, else the whole one."""
        if self.text is None:
            return self.content
        return text_content("") if self.text else reasoning_content([])


# What an event does to the streamed messages (exact classes; subclasses go through ``stream_op``).
START, DELTA, END = 1, 2, 3
STREAM_OPS: Final[dict[type, tuple[int, bool]]] = {
    MessageStart: (START, True),
    MessageDelta: (DELTA, True),
    MessageEnd: (END, True),
    ThoughtStart: (START, False),
    ThoughtDelta: (DELTA, False),
    ThoughtEnd: (END, False),
}
NOT_STREAM: Final = (0, False)
# The other events (exact classes), so that finding an event's op is one lookup.
STREAM_OPS.update(
    dict.fromkeys(
        (
            MessageEvent,
            Thought,
            ToolCall,
            ToolResult,
            InteractionRequest,
            InteractionResponse,
            DataEvent,
            FileEvent,
            Usage,
            ErrorEvent,
            Done,
            SourceUrl,
            SourceDocument,
            ToolCallDelta,
            ToolProgress,
            StateSnapshot,
            StateDelta,
            StepStart,
            StepEnd,
            AgentStart,
            AgentEnd,
            CustomEvent,
        ),
        NOT_STREAM,
    )
)
NO_CONTENT: Final = frozenset(
    (
        Usage,
        Done,
        # Not stored: the streamed tool input ends in its ``tool_call``, progress in its result;
        # state, steps and sub-agents are no message any client keeps; a custom event is noted
        # beside a content (``recorder_notes``): ai 7 keeps it as a part of one.
        ToolCallDelta,
        ToolProgress,
        StateSnapshot,
        StateDelta,
        StepStart,
        StepEnd,
        AgentStart,
        AgentEnd,
        CustomEvent,
    )
)
"""Events ``event_content`` gives nothing for (exact classes: the common ones, asked first)."""
# The frames an event gave (``TurnRecorder._step``): none, start, delta, start then delta, done, full.
NO_FRAME, START_FRAME, DELTA_FRAME, START_DELTA, DONE_FRAME, FULL_FRAME = range(6)


def stream_op(event: Event) -> tuple[int, bool]:
    """``STREAM_OPS`` for a subclass of a stream event, in ``TaskUpdateEncoder.encode``'s order."""
    if isinstance(event, MessageStart | ThoughtStart):
        return START, isinstance(event, MessageStart)
    if isinstance(event, MessageDelta):
        return DELTA, True
    if isinstance(event, ThoughtDelta):
        return DELTA, False
    if isinstance(event, MessageEnd | ThoughtEnd):
        return END, isinstance(event, MessageEnd)
    return NOT_STREAM
