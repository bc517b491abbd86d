"""The body of ``POST /v1/responses`` → what one turn needs.

``model`` names the agent; ``input`` is a string or a list of input items (``inbound``);
``instructions`` becomes a leading ``system`` message of this turn (not carried into the next one
by ``previous_response_id``, as the API defines). ``tools`` (client ``function`` tools),
``tool_choice``, ``parallel_tool_calls`` and every other field (sampling parameters, ...) reach
the agent as they came. Unknown keys never fail; a known key of the wrong type is an
``InputError`` naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.errors import InputError
from turnwire.formats.responses.inbound import item_references, parse_input
from turnwire.model import Message, TextBlock

ENVELOPE_KEYS: Final = frozenset(
    {"model", "input", "instructions", "stream", "store", "metadata", "previous_response_id", "conversation"}
)


@dataclass(slots=True)
class ResponsesRequest:
    model: str
    messages: list[Message]
    """The request's own input items as canonical messages (instructions first, when given)."""
    raw_input: list[Any] = field(default_factory=list)
    """``input`` as a list of items (a string input as one user message item)."""
    instructions: str | None = None
    stream: bool = False
    store: bool = True
    metadata: dict[str, str] = field(default_factory=dict)
    previous_response_id: str | None = None
    conversation: str | None = None
    tools: list[dict[str, Any]] = field(default_factory=list)
    tool_choice: Any = "auto"
    parallel_tool_calls: bool = True
    references: list[str] = field(default_factory=list)
    """Ids of ``item_reference`` items."""
    parameters: dict[str, Any] = field(default_factory=dict)
    """Everything but the envelope (tools, tool_choice, temperature, ...), as it came."""


def _typed(body: dict[str, Any], key: str, kind: type | tuple[type, ...], what: str) -> Any:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise InputError(f"{key} must be {what}", loc=(key,), type="invalid_type")
    return value


def parse_request(body: Any) -> ResponsesRequest:
    """A decoded request body → ``ResponsesRequest``. Raises ``InputError`` naming the field."""
    if not isinstance(body, dict):
        raise InputError("expected a JSON object", loc=())
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise InputError("model must be a non-empty string (the agent's name)", loc=("model",))
    raw = body.get("input")
    if raw is None:
        raw = []
    messages = parse_input(raw, ("input",))
    raw_list = [{"type": "message", "role": "user", "content": raw}] if isinstance(raw, str) else raw
    instructions = body.get("instructions")
    if instructions is not None and not isinstance(instructions, (str, list)):
        raise InputError("instructions must be a string", loc=("instructions",), type="invalid_type")
    if isinstance(instructions, list):  # the input-item form the API also echoes
        lead = parse_input(instructions, ("instructions",))
        instructions = "\n".join(b.text for m in lead for b in m.content if isinstance(b, TextBlock))
    if instructions:
        messages = [Message("system", [TextBlock(instructions)]), *messages]
    stream = _typed(body, "stream", bool, "true or false")
    store = _typed(body, "store", bool, "true or false")
    metadata = _typed(body, "metadata", dict, "an object of strings") or {}
    for key, value in metadata.items():
        if not isinstance(value, str):
            raise InputError("metadata values must be strings", loc=("metadata", key), type="invalid_type")
    previous = _typed(body, "previous_response_id", str, "a string (a response id)")
    conversation = body.get("conversation")
    if isinstance(conversation, dict):
        conversation = conversation.get("id")
        if not isinstance(conversation, str):
            raise InputError(
                "conversation.id must be a string", loc=("conversation", "id"), type="invalid_type"
            )
    elif conversation is not None and not isinstance(conversation, str):
        raise InputError(
            'conversation must be an id or {"id": ...}', loc=("conversation",), type="invalid_type"
        )
    tools = _typed(body, "tools", list, "a list of tools") or []
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or not isinstance(tool.get("type"), str):
            raise InputError("a tool must be an object with a type", loc=("tools", i), type="invalid_type")
        if tool["type"] == "function" and not isinstance(tool.get("name"), str):
            raise InputError(
                "a function tool needs a string name", loc=("tools", i, "name"), type="invalid_type"
            )
    tool_choice = body.get("tool_choice", "auto")
    if tool_choice is not None and not isinstance(tool_choice, (str, dict)):
        raise InputError(
            "tool_choice must be a string or an object", loc=("tool_choice",), type="invalid_type"
        )
    parallel = _typed(body, "parallel_tool_calls", bool, "true or false")
    for key, kind, what in (
        ("temperature", (int, float), "a number"),
        ("top_p", (int, float), "a number"),
        ("max_output_tokens", int, "an integer"),
        ("background", bool, "true or false"),
        ("user", str, "a string"),
    ):
        _typed(body, key, kind, what)
    return ResponsesRequest(
        model=model,
        messages=messages,
        raw_input=list(raw_list),
        instructions=instructions or None,
        stream=bool(stream),
        store=True if store is None else store,
        metadata=dict(metadata),
        previous_response_id=previous or None,
        conversation=conversation or None,
        tools=list(tools),
        tool_choice=tool_choice if tool_choice is not None else "auto",
        parallel_tool_calls=True if parallel is None else parallel,
        references=item_references(raw),
        parameters={k: v for k, v in body.items() if k not in ENVELOPE_KEYS},
    )


def chat_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Responses ``function`` tools in the Chat Completions shape agents already read
    (``parameters["openai"]["tools"]``)."""
    out = []
    for tool in tools:
        if tool.get("type") != "function":
            continue
        function = {k: tool[k] for k in ("name", "description", "parameters", "strict") if k in tool}
        out.append({"type": "function", "function": function})
    return out
