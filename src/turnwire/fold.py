"""Fold a stream of events into the turn a batch response carries: batch = fold(stream).

=========================  ==========================================================================
Event                      Effect on ``Turn.messages``
=========================  ==========================================================================
``message``                append an assistant message with the text
``message_start``          append an empty assistant message bound to the id (a repeated start
                           opens a new message and rebinds the id)
``message_delta``          append to the open message of that id; an unopened or closed id is dropped
``message_end``            close the message of that id
``tool_call``              arguments = ``raw_input`` unless ``None``, else ``input`` (``{}`` counts);
                           a new id appends a ``tool`` message with a ``ToolCallBlock``; a repeated id
                           refreshes the arguments in place (position and first name kept); a call
                           without id always appends
``tool_result``            append a ``tool`` message with a ``ToolResultBlock`` (orphans kept)
``interaction_request``    remembered; the last one becomes ``pending_interaction`` when paused
``done``                   its stop reason is remembered (the last wins, even ``None``)
anything else              nothing, unless ``full=True``
=========================  ==========================================================================

``full=True`` also keeps, in stream order, thoughts (assistant ``ReasoningBlock``, deltas joined like
messages), non-transient data events (assistant ``DataBlock``) and files (assistant ``ImageBlock``
for ``image/*``, else ``ResourceBlock``). Transient data is never part of a transcript.
"""

from __future__ import annotations

from collections.abc import Iterable

from turnwire.model import (
    DataBlock,
    DataEvent,
    Done,
    Event,
    FileEvent,
    ImageBlock,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Turn,
)


def fold(events: Iterable[Event], *, stop_reason: str | None = None, full: bool = False) -> Turn:
    """Fold ``events`` into a ``Turn`` in one pass (see the module table).

    ``Turn.stop_reason`` is ``stop_reason`` (the run's terminal reason) when not ``None``, else the
    last ``done`` event's. ``Turn.pending_interaction`` is the last interaction request, set only
    when that stop reason is ``"paused"``. Never raises on a well-typed event sequence.
    """
    messages: list[Message] = []
    append = messages.append
    # id -> (block, parts) of a text/reasoning block still receiving deltas; joined at close.
    open_text: dict[str, tuple[TextBlock, list[str]]] = {}
    open_thought: dict[str, tuple[ReasoningBlock, list[str]]] = {}
    calls: dict[str, ToolCallBlock] = {}
    request: InteractionRequest | None = None
    event_stop: str | None = None

    for e in events:
        cls = e.__class__
        if cls is MessageDelta:
            entry = open_text.get(e.id)
            if entry is not None:
                entry[1].append(e.delta)
        elif cls is ToolCall:
            args = e.raw_input if e.raw_input is not None else e.input
            call_id = e.id
            block = calls.get(call_id) if call_id is not None else None
            if block is None:
                block = ToolCallBlock(call_id, e.name, args)
                if call_id is not None:
                    calls[call_id] = block
                append(Message("tool", [block]))
            else:
                block.input = args
        elif cls is MessageEvent:
            append(Message("assistant", [TextBlock(e.text or "")]))
        elif cls is MessageStart:
            block = TextBlock("")
            previous = open_text.get(e.id)
            if previous is not None:
                previous[0].text = "".join(previous[1])
            open_text[e.id] = (block, [])
            append(Message("assistant", [block]))
        elif cls is MessageEnd:
            entry = open_text.pop(e.id, None)
            if entry is not None:
                entry[0].text = "".join(entry[1])
        elif cls is ToolResult:
            append(Message("tool", [ToolResultBlock(e.id, e.name, e.output, e.is_error)]))
        elif cls is Done:
            event_stop = e.stop_reason
        elif cls is InteractionRequest:
            request = e
        elif full:
            _keep(e, messages, open_thought)

    for block, parts in open_text.values():
        block.text = "".join(parts)
    for block, parts in open_thought.values():
        block.text = "".join(parts)

    reason = stop_reason if stop_reason is not None else event_stop
    pending = request if reason == "paused" else None
    return Turn(messages, reason, pending)


def _keep(
    e: Event, messages: list[Message], open_thought: dict[str, tuple[ReasoningBlock, list[str]]]
) -> None:
    """The ``full=True`` extras: thoughts, data and files as assistant messages."""
    cls = e.__class__
    if cls is ThoughtDelta:
        entry = open_thought.get(e.id)
        if entry is not None:
            entry[1].append(e.delta)
    elif cls is Thought:
        messages.append(Message("assistant", [ReasoningBlock(e.text or "")]))
    elif cls is ThoughtStart:
        block = ReasoningBlock("")
        previous = open_thought.get(e.id)
        if previous is not None:
            previous[0].text = "".join(previous[1])
        open_thought[e.id] = (block, [])
        messages.append(Message("assistant", [block]))
    elif cls is ThoughtEnd:
        entry = open_thought.pop(e.id, None)
        if entry is not None:
            entry[0].text = "".join(entry[1])
    elif cls is DataEvent:
        if not e.transient:
            messages.append(Message("assistant", [DataBlock(e.data, e.name)]))
    elif cls is FileEvent:
        media_type = e.media_type or ""
        file_cls = ImageBlock if media_type.startswith("image/") else ResourceBlock
        messages.append(Message("assistant", [file_cls(uri=e.url, mime_type=e.media_type or None)]))
