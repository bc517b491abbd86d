"""The canonical model: messages, content blocks, events and stop reasons.

Every wire format converts to and from these types and nothing else; no format ever sees another
format's shapes. Pure data: no I/O, no framework imports.

Conventions
- ``None`` on an optional field means "absent": renderers omit it, they never send ``null``.
- ``UNSET`` is used only where absent and ``null`` mean different things on the wire
  (``Message.display_content``, tool-result ``output``).
- Classes are slotted dataclasses: cheap to build on the hot paths (parse, fold, encode).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, TypeAlias


class _Unset(enum.Enum):
    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"

    def __bool__(self) -> bool:
        return False


UNSET: Final = _Unset.UNSET
"""Marks a field that was not given at all (distinct from an explicit ``None``)."""

Unset: TypeAlias = _Unset


# --------------------------------------------------------------------------- content blocks


@dataclass(slots=True)
class TextBlock:
    text: str
    type: ClassVar[str] = "text"


@dataclass(slots=True)
class ImageBlock:
    """An image: inline base64 ``data`` or a ``uri`` (http(s) or ``data:`` URL)."""

    data: str | None = None
    uri: str | None = None
    mime_type: str | None = None
    filename: str | None = None
    size: int | None = None
    type: ClassVar[str] = "image"


@dataclass(slots=True)
class ResourceBlock:
    """Any other file: inline base64 ``data`` or a ``uri``."""

    data: str | None = None
    uri: str | None = None
    mime_type: str | None = None
    filename: str | None = None
    size: int | None = None
    type: ClassVar[str] = "resource"


@dataclass(slots=True)
class AttachmentBlock:
    """A file already uploaded to the host, referred to by id (Agenta ``attachment``)."""

    attachment_id: str
    filename: str | None = None
    mime_type: str | None = None
    size: int | None = None
    type: ClassVar[str] = "attachment"


@dataclass(slots=True)
class ToolCallBlock:
    """A call the model made. ``input`` is ``None`` when the call carried no arguments at all."""

    id: str | None = None
    name: str | None = None
    input: Any = None
    type: ClassVar[str] = "tool_call"


@dataclass(slots=True)
class ToolResultBlock:
    """What a tool returned, keyed to its call by ``id``.

    ``output`` is ``UNSET`` when the result carried none (distinct from an explicit ``null``);
    ``is_error`` is ``None`` when the producer did not say.
    """

    id: str | None = None
    name: str | None = None
    output: Any = UNSET
    is_error: bool | None = None
    type: ClassVar[str] = "tool_result"


@dataclass(slots=True)
class ReasoningBlock:
    """The model's reasoning: ``text`` is the full thought, ``summary`` the short forms if any."""

    text: str = ""
    summary: list[str] | None = None
    id: str | None = None
    """The reasoning part's id on wires that keep one (a UIMessage ``reasoning`` part)."""
    type: ClassVar[str] = "reasoning"


@dataclass(slots=True)
class DataBlock:
    """Arbitrary structured JSON, optionally named (Vercel ``data-<name>``, Agentex DataContent)."""

    data: Any = None
    name: str | None = None
    type: ClassVar[str] = "data"


@dataclass(slots=True)
class SourceUrlBlock:
    """A web page the answer draws on (a citation), where the stream sent it: a UIMessage
    ``source-url`` part, a Responses ``url_citation``. ``id`` names the source within its turn."""

    id: str
    url: str
    title: str | None = None
    type: ClassVar[str] = "source_url"


@dataclass(slots=True)
class SourceDocumentBlock:
    """A document the answer draws on (a UIMessage ``source-document`` part, a Responses
    ``file_citation``)."""

    id: str
    media_type: str
    title: str
    filename: str | None = None
    type: ClassVar[str] = "source_document"


@dataclass(slots=True)
class UnknownBlock:
    """A block of a type turnwire does not know; ``raw`` keeps the wire dict as it came."""

    raw: dict[str, Any]
    type: ClassVar[str] = "unknown"

    @property
    def raw_type(self) -> str | None:
        value = self.raw.get("type")
        return value if isinstance(value, str) else None


Block: TypeAlias = (
    TextBlock
    | ImageBlock
    | ResourceBlock
    | AttachmentBlock
    | ToolCallBlock
    | ToolResultBlock
    | ReasoningBlock
    | DataBlock
    | SourceUrlBlock
    | SourceDocumentBlock
    | UnknownBlock
)

SourceBlock: TypeAlias = SourceUrlBlock | SourceDocumentBlock


# --------------------------------------------------------------------------- messages


class Role:
    """Role names turnwire itself produces. Inbound roles are open strings and kept as given."""

    USER: Final = "user"
    ASSISTANT: Final = "assistant"
    SYSTEM: Final = "system"
    DEVELOPER: Final = "developer"
    TOOL: Final = "tool"


@dataclass(slots=True)
class Message:
    """One message of a conversation.

    ``display_content``: ``UNSET`` = not given (legacy display), ``None`` = hide the message,
    ``""`` or any string = what to display instead of ``content``.
    """

    role: str
    content: list[Block] = field(default_factory=list)
    id: str | None = None
    display_content: Any = UNSET
    metadata: dict[str, Any] | None = None


# --------------------------------------------------------------------------- stop reasons


class StopReason:
    """Stop reasons turnwire produces itself. Agents may send any string; it is kept raw."""

    END_TURN: Final = "end_turn"
    MAX_TOKENS: Final = "max_tokens"
    TOOL_USE: Final = "tool_use"
    REFUSAL: Final = "refusal"
    PAUSED: Final = "paused"
    CANCELLED: Final = "cancelled"
    ERROR: Final = "error"


class InteractionKind:
    USER_APPROVAL: Final = "user_approval"
    USER_INPUT: Final = "user_input"
    CLIENT_TOOL: Final = "client_tool"


# --------------------------------------------------------------------------- events
# One class per frame type of the spec's "Streamed frames: Agenta format" table. ``type`` is the
# wire name of the frame; field names are the snake_case forms of the wire's camelCase keys.


@dataclass(slots=True)
class MessageEvent:
    """A whole assistant text message in one piece."""

    text: str
    type: ClassVar[str] = "message"


@dataclass(slots=True)
class MessageStart:
    id: str
    type: ClassVar[str] = "message_start"


@dataclass(slots=True)
class MessageDelta:
    id: str
    delta: str
    type: ClassVar[str] = "message_delta"


@dataclass(slots=True)
class MessageEnd:
    id: str
    type: ClassVar[str] = "message_end"


@dataclass(slots=True)
class Thought:
    text: str
    type: ClassVar[str] = "thought"


@dataclass(slots=True)
class ThoughtStart:
    id: str
    type: ClassVar[str] = "thought_start"


@dataclass(slots=True)
class ThoughtDelta:
    id: str
    delta: str
    type: ClassVar[str] = "thought_delta"


@dataclass(slots=True)
class ThoughtEnd:
    id: str
    type: ClassVar[str] = "thought_end"


@dataclass(slots=True)
class ToolCall:
    """A tool call. May repeat for one id: a later one refreshes the arguments.

    ``raw_input`` wins over ``input`` when it is not ``None`` (``{}`` counts as real input).
    """

    id: str | None = None
    name: str | None = None
    input: Any = None
    raw_input: Any = None
    render: Any = None
    type: ClassVar[str] = "tool_call"

    @property
    def arguments(self) -> Any:
        return self.raw_input if self.raw_input is not None else self.input


@dataclass(slots=True)
class ToolResult:
    """A tool's result. ``output`` is the text/JSON result, ``data`` a structured form of it."""

    id: str | None = None
    output: Any = UNSET
    data: Any = None
    is_error: bool | None = None
    denied: bool | None = None
    render: Any = None
    name: str | None = None
    type: ClassVar[str] = "tool_result"

    @property
    def result_output(self) -> Any:
        """THE output of the result, on every wire and in every history: the structured ``data``
        when the agent gave one and the result is a success, else ``output`` (an error's or a
        denial's text stays the text). Wires with a second field (Agenta's ``data``) also carry
        ``data`` as given; whatever assembles a message from a result uses this."""
        if self.data is not None and not self.is_error and not self.denied:
            return self.data
        return self.output


@dataclass(slots=True)
class InteractionRequest:
    """The agent asks the client for something; the turn pauses (kind: see ``InteractionKind``)."""

    id: str
    kind: str
    payload: Any = None
    type: ClassVar[str] = "interaction_request"


@dataclass(slots=True)
class InteractionResponse:
    id: str
    kind: str
    payload: Any = None
    type: ClassVar[str] = "interaction_response"


@dataclass(slots=True)
class DataEvent:
    name: str | None = None
    data: Any = None
    transient: bool | None = None
    type: ClassVar[str] = "data"


@dataclass(slots=True)
class FileEvent:
    """A file the agent sends (``url``: http(s) or a ``data:`` URL). ``reasoning``: the model
    emitted it inside its reasoning (AI SDK 7 ``reasoning-file``); wires without that distinction
    send it as any file."""

    url: str
    media_type: str
    reasoning: bool | None = None
    type: ClassVar[str] = "file"


@dataclass(slots=True)
class Usage:
    input: int | None = None
    output: int | None = None
    total: int | None = None
    cost: float | None = None
    type: ClassVar[str] = "usage"


@dataclass(slots=True)
class ErrorEvent:
    message: str
    code: str | None = None
    detail: Any = None
    type: ClassVar[str] = "error"


@dataclass(slots=True)
class Done:
    stop_reason: str | None = None
    trace_id: str | None = None
    type: ClassVar[str] = "done"


# The events below are the ones the newer wires share beyond the Agenta runtime's set (sources,
# streamed tool input, progress, state, steps, sub-agents, custom). Each wire renders what it can
# hold and documents what it leaves out (docs/events.md has the table across wires).


@dataclass(slots=True)
class SourceUrl:
    """A web page the answer draws on (a citation). ``id`` names the source within the turn."""

    id: str
    url: str
    title: str | None = None
    type: ClassVar[str] = "source_url"


@dataclass(slots=True)
class SourceDocument:
    """A document the answer draws on (a citation without a URL: a file, a knowledge-base entry)."""

    id: str
    media_type: str
    title: str
    filename: str | None = None
    type: ClassVar[str] = "source_document"


@dataclass(slots=True)
class ToolCallDelta:
    """A piece of a tool call's arguments, as the model generates them (JSON text, in order).

    The first delta of an id opens the call (``name`` is read from it); the ``ToolCall`` with that
    id closes it and carries the whole arguments, which are what every history keeps."""

    id: str
    delta: str
    name: str | None = None
    type: ClassVar[str] = "tool_call_delta"


@dataclass(slots=True)
class ToolProgress:
    """A preliminary output of a running tool (its progress); the call's ``ToolResult`` replaces it."""

    id: str
    output: Any = None
    type: ClassVar[str] = "tool_progress"


@dataclass(slots=True)
class StateSnapshot:
    """The agent's whole shared state (any JSON; usually an object)."""

    state: Any = None
    type: ClassVar[str] = "state_snapshot"


@dataclass(slots=True)
class StateDelta:
    """A change to the agent's shared state: RFC 6902 JSON Patch operations, applied in order."""

    delta: list[dict[str, Any]] = field(default_factory=list)
    type: ClassVar[str] = "state_delta"


@dataclass(slots=True)
class StepStart:
    """A named step of the agent begins (a LangGraph node, a phase of a pipeline)."""

    name: str
    type: ClassVar[str] = "step_start"


@dataclass(slots=True)
class StepEnd:
    name: str
    type: ClassVar[str] = "step_end"


@dataclass(slots=True)
class AgentStart:
    """A sub-agent (or the agent a handoff went to) begins speaking. ``id`` tells two runs of
    the same agent apart; wires that need one make it from the name when it is ``None``."""

    name: str
    id: str | None = None
    type: ClassVar[str] = "agent_start"


@dataclass(slots=True)
class AgentEnd:
    name: str
    id: str | None = None
    type: ClassVar[str] = "agent_end"


@dataclass(slots=True)
class CustomEvent:
    """An event of the agent's own, ``kind`` namespaced (``<namespace>.<name>``, e.g.
    ``acme.progress``) so no two producers collide; ``data`` any JSON."""

    kind: str
    data: Any = None
    type: ClassVar[str] = "custom"


Event: TypeAlias = (
    MessageEvent
    | MessageStart
    | MessageDelta
    | MessageEnd
    | Thought
    | ThoughtStart
    | ThoughtDelta
    | ThoughtEnd
    | ToolCall
    | ToolResult
    | InteractionRequest
    | InteractionResponse
    | DataEvent
    | FileEvent
    | Usage
    | ErrorEvent
    | Done
    | SourceUrl
    | SourceDocument
    | ToolCallDelta
    | ToolProgress
    | StateSnapshot
    | StateDelta
    | StepStart
    | StepEnd
    | AgentStart
    | AgentEnd
    | CustomEvent
)

EVENT_TYPES: Final[dict[str, type]] = {
    cls.type: cls
    for cls in (
        MessageEvent,
        MessageStart,
        MessageDelta,
        MessageEnd,
        Thought,
        ThoughtStart,
        ThoughtDelta,
        ThoughtEnd,
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
    )
}
"""Wire frame type -> event class."""


# --------------------------------------------------------------------------- turn


@dataclass(slots=True)
class Turn:
    """The folded result of one run: what a batch response carries.

    ``pending_interaction`` is the last interaction request, set only when ``stop_reason`` is
    ``paused``; formats render it in their own shape.
    """

    messages: list[Message] = field(default_factory=list)
    stop_reason: str | None = None
    pending_interaction: InteractionRequest | None = None
