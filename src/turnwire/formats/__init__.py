"""The registry of wire formats and the contract every format adapter implements.

A format is one package in this folder whose ``__init__`` defines ``FORMAT = WireFormat(...)``.
Packages are discovered on first use, so adding a format means adding one package and nothing
else. The server asks a format's adapter for everything format-specific (parsing, rendering a
batch answer, the stream encoder, headers); it never tests a format's name.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from turnwire.errors import UnknownFormatError, failure_message
from turnwire.model import Block, Event, InteractionRequest, Message, Role, ToolCallBlock, Turn

Frame = dict[str, Any]
"""One wire frame or chunk, JSON-ready."""


class StreamEncoder(Protocol):
    """Turns one turn's events into wire frames: ``start()``, ``encode(event)`` per event, then
    ``finish()`` exactly once (also after a failure, with ``error``), which closes the stream."""

    def start(self) -> list[Frame]: ...

    def encode(self, event: Event) -> list[Frame]: ...

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Frame]: ...


@dataclass(frozen=True, slots=True)
class TurnInfo:
    """What a format needs to know about the turn it renders, beside the events themselves."""

    session_id: str
    trace_id: str
    message_id: str
    """The id of the answer's assistant message (a continued message keeps the client's id)."""
    history: Sequence[Message] = ()
    """The conversation the turn ran on (calls answered in this turn are found here)."""
    client_version: Any = None
    """The client version the answer targets, as the format's ``VersionOption`` parsed it."""
    events: Sequence[Event] = ()
    """A batch answer's events, the whole turn (``render_turn``: for a format whose batch answer
    shows more than the fold keeps, as its stream's client would hold it)."""
    run_id: str | None = None
    """The run the client named, when its protocol names runs (AG-UI ``runId``); ``None``: the
    answer's ``message_id`` names the run too."""


@dataclass(frozen=True, slots=True)
class VersionOption:
    """A format whose output depends on the client's version: how a request names it."""

    header: str
    """The request header naming the version (blank or absent = the server's setting)."""
    parse: Callable[[str], Any]
    """Header value → version; raises ``ValueError`` naming what is accepted."""
    setting: str
    """The ``Settings`` field holding the server's default."""


@dataclass(frozen=True, slots=True)
class WireFormat:
    """A format adapter: messages in and out, a turn as a batch answer and as a stream."""

    name: str
    parse_messages: Callable[[Any], list[Message]]
    """Wire messages (a JSON array, already decoded) -> canonical messages. Raises InputError."""
    render_messages: Callable[[Sequence[Message]], list[dict[str, Any]]]
    """Canonical messages -> wire messages (JSON-ready dicts)."""
    description: str = ""
    render_turn: Callable[[Turn, Sequence[InteractionRequest], TurnInfo], dict[str, Any]] | None = None
    """A folded turn (and every request it left pending) -> the batch answer's ``outputs``."""
    stream_encoder: Callable[[TurnInfo], StreamEncoder] | None = None
    """A fresh encoder for one streamed turn."""
    continuation_id: Callable[[list[Any]], str | None] = lambda raw: None
    """The id of the client's trailing message that this turn continues, if the format has one."""
    batch_headers: Mapping[str, str] = field(default_factory=dict)
    stream_headers: Mapping[str, str] = field(default_factory=dict)
    sse_trailer: bytes = b""
    """What ends an SSE stream of this format after the encoder's last frame."""
    sse_event_ids: bool = False
    """Whether SSE streams of this format number their events (``id: <trace id>:<n>``), so a client
    can reconnect with ``Last-Event-ID`` and get exactly the events after it."""
    ndjson: bool = True
    """Whether the stream frames may travel as NDJSON lines (else NDJSON answers use the default
    format's frames, as the reference does)."""
    version: VersionOption | None = None
    render_conversation: Callable[[Sequence[Message], Mapping[str, str]], list[dict[str, Any]]] | None = None
    """A stored conversation (one canonical message per stored content, ids kept) and its open
    approvals (tool call id → approval id) → the messages a client of this format holds after
    those turns. ``None``: ``render_messages``."""
    stored: bool = False
    """The store's own form: a conversation read in this format is the stored records as they are."""
    sources: bool = False
    """Whether the format's messages hold sources (``SourceUrlBlock`` / ``SourceDocumentBlock``): a
    stored conversation read in it gets the sources its turns streamed, where they streamed."""
    custom_block: Callable[[str, Any, Any], Block | None] | None = None
    """A custom event's kind and data, and the client version a history reader names
    (``version``; ``None``: the format has none) → the block that reader's client holds for it,
    where it streamed (``None``: it holds none, the event is left out of the history)."""

    @property
    def serves_turns(self) -> bool:
        """Whether the format can answer a turn (batch and stream), not only convert messages."""
        return self.render_turn is not None and self.stream_encoder is not None


NOTE_KEY: Final = "turnwire"
"""``Message.metadata[NOTE_KEY]`` on a stored conversation's messages (``render_conversation``):
``message_id`` (the message the content is part of, when the store knows it), ``turn`` (the
trace id of the turn that wrote it), ``session``, ``usage``, ``render`` (a call's or result's),
``notices_before`` / ``notices_after`` (the turn's interaction requests and errors stored right
before / after the content, as stored: ``{"type": "interaction_request", id, kind, payload}``,
``{"type": "error", message, code, detail?}``). For adapters that show messages and
turns as their client assembled them; never rendered as it is."""


def without_note(metadata: dict[str, Any] | None) -> dict[str, Any] | None:
    """``metadata`` without the conversation note (``None`` when nothing else is left)."""
    if not metadata or NOTE_KEY not in metadata:
        return metadata
    rest = {k: v for k, v in metadata.items() if k != NOTE_KEY}
    return rest or None


def join_answers(messages: Sequence[Message], roles: frozenset[str]) -> list[Message]:
    """Consecutive messages whose roles are in ``roles`` become one assistant message: one answer,
    however many turns and stored contents it took. A tool message holding only calls is the
    assistant's (only results speak as the tool)."""
    out: list[Message] = []
    for msg in messages:
        role = msg.role
        if role == Role.TOOL and all(isinstance(b, ToolCallBlock) for b in msg.content):
            role = Role.ASSISTANT
        if role in roles and out and out[-1].role in roles:
            out[-1].content.extend(msg.content)
            out[-1].role = Role.ASSISTANT
        else:
            out.append(Message(role, list(msg.content), id=msg.id, metadata=without_note(msg.metadata)))
    return out


def encode_stream(events: Iterable[Event], encoder: StreamEncoder) -> Iterator[Frame]:
    """A whole turn's frames from ``events`` (synchronous; for conversion and tests).

    An exception from ``events`` ends the stream with the encoder's failure frames; it is not
    re-raised: the stream is the report.
    """
    yield from encoder.start()
    try:
        for event in events:
            yield from encoder.encode(event)
    except Exception as exc:
        yield from encoder.finish(error=failure_message(exc))
        return
    yield from encoder.finish()


_registry: dict[str, WireFormat] = {}
_discovered = False


def register(fmt: WireFormat) -> WireFormat:
    _registry[fmt.name] = fmt
    return fmt


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    _discovered = True
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        fmt = getattr(module, "FORMAT", None)
        if isinstance(fmt, WireFormat):
            register(fmt)


def get_format(name: str) -> WireFormat:
    _discover()
    try:
        return _registry[name.strip().lower()]
    except KeyError:
        raise UnknownFormatError(name, names()) from None


def names() -> list[str]:
    _discover()
    return sorted(_registry)


def turn_formats() -> list[str]:
    """The formats that can answer a turn on the invoke door."""
    _discover()
    return sorted(name for name, fmt in _registry.items() if fmt.serves_turns)
