"""A turn's events as the blocks the store keeps of them, for the batch answer.

The batch answer and the stored conversation are rendered by one function
(``conversation.render_answer`` / ``render_conversation``), so a batch turn reads back exactly as
it was answered. This module gives that function what the recorder stores of the turn, in the
stream's order: one block per text, reasoning (with the stream's part id), call, result,
non-transient data (transient data is no part of a message: the AI SDK hands it to ``onData``
only), file and source, and for an ai 7 client each custom event's ``custom`` part
(``custom_parts``); a ``data-render`` block after a call or result that carries a ``render``; the
parts of interaction requests (``interaction_parts``); an error's ``data-agent-error`` part, where
the turn ends for its client (the AI SDK stops reading at the ``error`` chunk); and the turn's usage
(the last ``usage`` event wins, as in the stream's ``finish``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.formats.vercel.custom_parts import custom_block
from turnwire.formats.vercel.error_chunks import error_code, error_pair
from turnwire.formats.vercel.interaction_chunks import interaction_parts
from turnwire.formats.vercel.versions import ClientVersion
from turnwire.model import (
    Block,
    CustomEvent,
    DataBlock,
    DataEvent,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ReasoningBlock,
    ResourceBlock,
    SourceDocument,
    SourceDocumentBlock,
    SourceUrl,
    SourceUrlBlock,
    TextBlock,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Usage,
)

RENDER: Final = "render"
"""The name of the data part (``data-render``) a call's or result's ``render`` travels as."""


def render_block(call_id: str | None, render: Any) -> DataBlock:
    """The ``data-render`` part the stream sends after a call or result that has a ``render``."""
    return DataBlock({"toolCallId": call_id, "render": render}, RENDER)


def agent_error_block(message: str, code: str | None, detail: Any = None) -> DataBlock:
    """The ``data-agent-error`` part the stream sends for an error (``error_chunks.error_pair``)."""
    (chunk, _) = error_pair(error_code(ErrorEvent(message, code, detail)), message, detail)
    return DataBlock(chunk["data"], chunk["type"].removeprefix("data-"))


@dataclass(slots=True)
class Answer:
    blocks: list[Block] = field(default_factory=list)
    usage: dict[str, Any] | None = None
    errored: bool = False
    """The stream reported an error: its client read nothing after it, not even its ``finish``."""


def answer_of(events: Iterable[Event], client_version: ClientVersion = ClientVersion.DEFAULT) -> Answer:
    """The turn's blocks in stream order and its usage, as a client of ``client_version`` holds
    them (module docstring)."""
    out = Answer()
    blocks = out.blocks
    # Streamed text and reasoning still open, by their event id: the block and its pieces.
    texts: dict[str, tuple[TextBlock, list[str]]] = {}
    thoughts: dict[str, tuple[ReasoningBlock, list[str]]] = {}
    n_thoughts = 0
    # ``type(e) is C``: as cheap as comparing ``e.__class__``, and the type checker narrows ``e`` on
    # it (events are never subclassed).
    for e in events:
        if type(e) is MessageDelta:
            entry = texts.get(e.id)
            if entry is None:  # a delta for an unopened id opens it (stream and store alike)
                entry = texts[e.id] = (TextBlock(""), [])
                blocks.append(entry[0])
            entry[1].append(e.delta)
        elif type(e) is ThoughtDelta:
            thought = thoughts.get(e.id)
            if thought is None:
                thought = thoughts[e.id] = (ReasoningBlock("", id=e.id), [])
                blocks.append(thought[0])
            thought[1].append(e.delta)
        elif type(e) is MessageStart:
            if e.id not in texts:
                texts[e.id] = (TextBlock(""), [])
                blocks.append(texts[e.id][0])
        elif type(e) is ThoughtStart:
            if e.id not in thoughts:
                thoughts[e.id] = (ReasoningBlock("", id=e.id), [])
                blocks.append(thoughts[e.id][0])
        elif type(e) is MessageEnd:
            entry = texts.pop(e.id, None)
            if entry is not None:
                entry[0].text = "".join(entry[1])
        elif type(e) is ThoughtEnd:
            thought = thoughts.pop(e.id, None)
            if thought is not None:
                thought[0].text = "".join(thought[1])
        elif type(e) is MessageEvent:
            blocks.append(TextBlock(e.text or ""))
        elif type(e) is Thought:
            n_thoughts += 1  # the stream's id for a one-piece thought (``UIStreamEncoder._thought``)
            blocks.append(ReasoningBlock(e.text or "", id=f"reasoning-{n_thoughts}"))
        elif type(e) is ToolCall:
            if e.id:
                blocks.append(ToolCallBlock(e.id, e.name, e.arguments))
                if e.render is not None:
                    blocks.append(render_block(e.id, e.render))
        elif type(e) is ToolResult:
            blocks.append(ToolResultBlock(e.id, e.name, e.result_output, e.is_error))
            if e.render is not None:
                blocks.append(render_block(e.id, e.render))
        elif type(e) is DataEvent:
            if not e.transient:
                blocks.append(DataBlock(e.data, e.name))
        elif type(e) is FileEvent:
            if e.url and e.media_type:
                blocks.append(ResourceBlock(uri=e.url, mime_type=e.media_type))
        elif type(e) is SourceUrl:
            blocks.append(SourceUrlBlock(e.id, e.url, e.title))
        elif type(e) is SourceDocument:
            blocks.append(SourceDocumentBlock(e.id, e.media_type, e.title, e.filename))
        elif type(e) is CustomEvent:
            custom = custom_block(e.kind, e.data, client_version)
            if custom is not None:
                blocks.append(custom)
        elif type(e) is InteractionRequest:
            blocks.extend(interaction_parts(e))
        elif type(e) is ErrorEvent:
            blocks.append(agent_error_block(e.message, e.code, e.detail))
            out.errored = True
            break
        elif type(e) is Usage:
            usage = {k: getattr(e, k) for k in ("input", "output", "total", "cost")}
            out.usage = {k: v for k, v in usage.items() if v is not None} or None
    for text, pieces in texts.values():
        text.text = "".join(pieces)
    for reasoning, pieces in thoughts.values():
        reasoning.text = "".join(pieces)
    return out
