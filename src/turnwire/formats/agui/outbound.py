"""Canonical messages → AG-UI messages (what ``MESSAGES_SNAPSHOT`` and a history read carry).

An AG-UI assistant message holds one text and its tool calls; reasoning, tool results and data
are messages of their own. So one canonical message may become several AG-UI messages, in the
order of its blocks:

======================  ==============================================================================
canonical block         AG-UI message
======================  ==============================================================================
text (user)             ``content``: a string when the message is all text, else a list of parts
image / file            ``image`` / ``document`` part with a data, url or file (attachment id) source
text (assistant)        the open assistant message's ``content`` (a text after a tool call opens a new
                        assistant message, so the order survives)
tool call               ``toolCalls`` of the open assistant message (one is opened if needed);
                        arguments as JSON text
tool result             a ``tool`` message; text as is, anything else as JSON text; errors also set
                        ``error``
reasoning               a ``reasoning`` message
data                    an ``activity`` message (``activityType`` = the block's name, else ``data``)
======================  ==============================================================================

Every message gets an id: ``Message.id``, else ``msg-<n>``; messages split from one canonical
message take ``<id>-<k>``. Files in assistant messages and unknown blocks are dropped (AG-UI
assistant content is text only).

``Renderer`` is the same rendering with two more inputs, for a stored conversation
(``conversation``): which answer a message is part of (its messages are numbered per answer,
``M``, ``M-2``…, across the contents it is stored as, as the stream numbered them, and its tool
results go where a client puts a ``TOOL_CALL_RESULT``: after the assistant message holding the
call and the tool messages after it) and where it came from (calls join only the assistant
message of the same source: a turn's call never joins the message before its turn), and the
sub-agent it belongs to (``subagentRunId`` on each message made from it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from turnwire.formats._function_calls import (
    ASSISTANT_SIDE,
    TEXT_ROLES,
    encode_arguments,
    encode_output,
    only_calls,
)
from turnwire.model import (
    AttachmentBlock,
    DataBlock,
    ImageBlock,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    UnknownBlock,
)

DEFAULT_ACTIVITY: Final = "data"
_AFTER_RESULT: Final = object()


def render_messages(msgs: Sequence[Message]) -> list[dict[str, Any]]:
    """Canonical messages → AG-UI messages (JSON-ready dicts that ``ag_ui.core.Message`` accepts)."""
    renderer = Renderer()
    for n, msg in enumerate(msgs, 1):
        renderer.add(msg, msg.id or f"msg-{n}")
    return renderer.out


class Renderer:
    """AG-UI messages built one canonical message at a time (``out``), ids unique among them."""

    def __init__(self) -> None:
        self.out: list[dict[str, Any]] = []
        self.calls: set[str] = set()
        """Ids of the tool calls in ``out``."""
        self._used: set[str] = set()
        self._counts: dict[str, int] = {}
        self._last_source: Any = None
        self._added: list[dict[str, Any]] = []  # the messages the current ``add`` made

    def add(
        self,
        msg: Message,
        base: str,
        *,
        answer: str | None = None,
        source: Any = None,
        subagent_run_id: str | None = None,
    ) -> None:
        """Render ``msg``. ``base``: its id (``<base>-<k>`` for the messages split from it);
        ``answer``: the answer it is part of, which names its messages instead (``answer``,
        ``answer-2``…, counted over every message of that answer); ``source``: where it came from
        (a call joins the assistant message before it only if that one has the same source);
        ``subagent_run_id``: the sub-agent its messages belong to."""
        self._added = []
        if msg.role in ASSISTANT_SIDE:
            self._assistant_side(msg, base, answer, (source, subagent_run_id))
        else:
            self._append(_plain(msg, self._name(base, answer)), (source, subagent_run_id))
        if subagent_run_id is not None:
            for message in self._added:
                message["subagentRunId"] = subagent_run_id

    def _name(self, base: str, answer: str | None) -> str:
        if answer is not None:
            n = self._counts[answer] = self._counts.get(answer, 0) + 1
            base = answer if n == 1 else f"{answer}-{n}"
        return _unique(base, self._used)

    def _append(self, message: dict[str, Any], source: Any) -> dict[str, Any]:
        self.out.append(message)
        self._added.append(message)
        self._last_source = source
        return message

    def _assistant_side(self, msg: Message, base: str, answer: str | None, source: Any) -> None:
        """Assistant and tool messages: text and calls share an assistant message; the rest stand
        alone."""
        out = self.out
        # A message made only of calls (fold puts each call in a "tool" message; the store keeps
        # each call as a content of its own) joins the assistant message just before it, as the
        # model said the text and made the calls in one answer.
        current: dict[str, Any] | None = None
        if (
            msg.role != "assistant"
            and out
            and out[-1]["role"] == "assistant"
            and self._last_source == source
            and only_calls(msg)
        ):
            current = out[-1]

        def open_assistant() -> dict[str, Any]:
            message = _with_metadata({"id": self._name(base, answer), "role": "assistant"}, msg)
            return self._append(message, source)

        if not msg.content and msg.role == "assistant":
            open_assistant()  # an empty answer is still a message
        for block in msg.content:
            if isinstance(block, TextBlock):
                if current is None or "toolCalls" in current or out[-1] is not current:
                    current = open_assistant()
                current["content"] = current.get("content", "") + block.text
            elif isinstance(block, ToolCallBlock):
                if current is None or out[-1] is not current:
                    current = open_assistant()
                call_id = block.id or f"{current['id']}-call-{len(current.get('toolCalls', ())) + 1}"
                function = {"name": block.name or "unknown_tool", "arguments": encode_arguments(block.input)}
                current.setdefault("toolCalls", []).append(
                    {"id": call_id, "type": "function", "function": function}
                )
                self.calls.add(call_id)
            elif isinstance(block, ToolResultBlock):
                message = _tool_message(block, self._name(base, answer))
                if answer is None:
                    self._append(message, source)
                else:
                    self._place_result(message)
            elif isinstance(block, ReasoningBlock):
                text = block.text or "\n".join(block.summary or ())
                self._append({"id": self._name(base, answer), "role": "reasoning", "content": text}, source)
            elif isinstance(block, DataBlock):
                content = block.data if isinstance(block.data, dict) else {"value": block.data}
                activity = block.name or DEFAULT_ACTIVITY
                message = {
                    "id": self._name(base, answer),
                    "role": "activity",
                    "activityType": activity,
                    "content": content,
                }
                self._append(message, source)

    def _place_result(self, message: dict[str, Any]) -> None:
        """Where a client puts a ``TOOL_CALL_RESULT``: after the assistant message holding the
        call and the tool messages after it (at the end when no message holds the call)."""
        out, call_id = self.out, message["toolCallId"]
        at = len(out)
        for i in range(len(out) - 1, -1, -1):  # the call is usually near the end
            if out[i]["role"] == "assistant" and any(c["id"] == call_id for c in out[i].get("toolCalls", ())):
                at = i + 1
                break
        while at < len(out) and out[at]["role"] == "tool":
            at += 1
        out.insert(at, message)
        self._added.append(message)
        # Model output after a result is a new step: its calls do not join the text before.
        self._last_source = _AFTER_RESULT


def _unique(base: str, used: set[str]) -> str:
    candidate, k = base, 1
    while candidate in used:
        k += 1
        candidate = f"{base}-{k}"
    used.add(candidate)
    return candidate


def _with_metadata(message: dict[str, Any], msg: Message) -> dict[str, Any]:
    if msg.metadata:
        message["metadata"] = dict(msg.metadata)
    return message


def _plain(msg: Message, msg_id: str) -> dict[str, Any]:
    """A user, system or developer message (and any other role, kept as the role it has)."""
    role = msg.role
    texts = [b for b in msg.content if isinstance(b, TextBlock)]
    if role in TEXT_ROLES or len(texts) == len(msg.content):
        content: Any = "".join(b.text for b in texts)
    else:
        content = [p for p in (_part(b) for b in msg.content) if p is not None]
    return _with_metadata({"id": msg_id, "role": role, "content": content}, msg)


def _part(block: Any) -> dict[str, Any] | None:
    if isinstance(block, TextBlock):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageBlock | ResourceBlock | AttachmentBlock):
        return _media(block)
    if isinstance(block, UnknownBlock):
        return block.raw if block.raw_type in ("image", "audio", "video", "document") else None
    return None


def _media(block: ImageBlock | ResourceBlock | AttachmentBlock) -> dict[str, Any] | None:
    kind = "image" if isinstance(block, ImageBlock) else "document"
    if isinstance(block, AttachmentBlock):
        source: dict[str, Any] = {"type": "file", "value": block.attachment_id}
        if block.mime_type and block.mime_type.startswith("image/"):
            kind = "image"
    elif block.data:
        source = {
            "type": "data",
            "value": block.data,
            "mimeType": block.mime_type or "application/octet-stream",
        }
    elif block.uri:
        source = {"type": "url", "value": block.uri}
    else:
        return None
    if block.mime_type and source["type"] != "data":
        source["mimeType"] = block.mime_type
    part: dict[str, Any] = {"type": kind, "source": source}
    if block.filename:
        part["metadata"] = {"filename": block.filename}
    return part


def _tool_message(block: ToolResultBlock, msg_id: str) -> dict[str, Any]:
    text = encode_output(block.output)
    message: dict[str, Any] = {
        "id": msg_id,
        "role": "tool",
        "toolCallId": block.id or "unknown",
        "content": text,
    }
    if block.is_error:
        message["error"] = text or "error"
    return message
