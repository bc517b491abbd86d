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
    # A text block still receiving deltas: its parts by id, joined into the block when it closes.
    parts_of: dict[str, list[str]] = {}
    block_of: dict[str, TextBlock] = {}
    open_thought: dict[str, tuple[ReasoningBlock, list[str]]] = {}
    calls: dict[str, ToolCallBlock] = {}
    request: InteractionRequest | None = None
    event_stop: str | None = None
    parts_get = parts_of.get  # a local: the loop below runs once per streamed token

    # ``type(e) is C`` (not isinstance, not ``match``): an exact-class test as cheap as comparing
    # ``e.__class__``, and one the type checker narrows ``e`` on. Events are never subclassed.
    for e in events:
        if type(e) is MessageDelta:
            parts = parts_get(e.id)
            if parts is not None:
                parts.append(e.delta)
        elif type(e) is ToolCall:
            args = e.raw_input if e.raw_input is not None else e.input
            call_id = e.id
            call = calls.get(call_id) if call_id is not None else None
            if call is None:
                call = ToolCallBlock(call_id, e.name, args)
                if call_id is not None:
                    calls[call_id] = call
                append(Message("tool", [call]))
            else:
                call.input = args
        elif type(e) is MessageEvent:
            append(Message("assistant", [TextBlock(e.text or "")]))
        elif type(e) is MessageStart:
            msg_id = e.id
            if msg_id in parts_of:
                block_of[msg_id].text = "".join(parts_of[msg_id])
            block = block_of[msg_id] = TextBlock("")
            parts_of[msg_id] = []
            append(Message("assistant", [block]))
        elif type(e) is MessageEnd:
            parts = parts_of.pop(e.id, None)
            if parts is not None:
                block_of.pop(e.id).text = "".join(parts)
        elif type(e) is ToolResult:
            append(Message("tool", [ToolResultBlock(e.id, e.name, e.result_output, e.is_error)]))
        elif type(e) is Done:
            event_stop = e.stop_reason
        elif type(e) is InteractionRequest:
            request = e
        elif full:
            _keep(e, messages, open_thought)

    for msg_id, parts in parts_of.items():
        block_of[msg_id].text = "".join(parts)
    for thought, parts in open_thought.values():
        thought.text = "".join(parts)

    reason = stop_reason if stop_reason is not None else event_stop
    pending = request if reason == "paused" else None
    return Turn(messages, reason, pending)


def _keep(
    e: Event, messages: list[Message], open_thought: dict[str, tuple[ReasoningBlock, list[str]]]
) -> None:
    """The ``full=True`` extras: thoughts, data and files as assistant messages."""
    if type(e) is ThoughtDelta:
        entry = open_thought.get(e.id)
        if entry is not None:
            entry[1].append(e.delta)
    elif type(e) is Thought:
        messages.append(Message("assistant", [ReasoningBlock(e.text or "")]))
    elif type(e) is ThoughtStart:
        block = ReasoningBlock("")
        previous = open_thought.get(e.id)
        if previous is not None:
            previous[0].text = "".join(previous[1])
        open_thought[e.id] = (block, [])
        messages.append(Message("assistant", [block]))
    elif type(e) is ThoughtEnd:
        entry = open_thought.pop(e.id, None)
        if entry is not None:
            entry[0].text = "".join(entry[1])
    elif type(e) is DataEvent:
        if not e.transient:
            messages.append(Message("assistant", [DataBlock(e.data, e.name)]))
    elif type(e) is FileEvent:
        media_type = e.media_type or ""
        file_cls = ImageBlock if media_type.startswith("image/") else ResourceBlock
        messages.append(Message("assistant", [file_cls(uri=e.url, mime_type=e.media_type or None)]))
