"""A stored branch of a conversation in any wire format (``render_conversation``), as that format's
clients hold it: what ``GET /tasks/{id}/messages?format=`` answers and what doors that send a
conversation (AG-UI's connect) send. The sources and custom events noted on a content
(``sources_before`` / ``sources_after``) that the format's client holds (``WireFormat.sources``;
``WireFormat.custom_block``, for the client version the reader names) become an assistant message
of their own beside it, of the same answer and turn, in their stream order."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from turnwire.conversations.planning import INTERRUPTED, marker_type
from turnwire.formats import NOTE_KEY, WireFormat, get_format
from turnwire.formats.agentex import content_to_message
from turnwire.formats.agentex.sources import custom_of, source_block
from turnwire.interactions import pending_approvals
from turnwire.model import Block, DataBlock, InteractionRequest, Message, ResourceBlock, Role
from turnwire.store.base import StoredMessage

INTERRUPTED_PART: Final = "turnwire-interrupted"
"""Name of the data block (Vercel part ``data-turnwire-interrupted``) an interruption marker becomes."""


@dataclass(frozen=True, slots=True)
class _Notice:
    """A stored error: no content of a conversation, a notice some clients keep (Vercel's
    ``data-agent-error``) where the stream sent it; ``data`` is the stored error, ``detail`` added."""

    data: dict[str, Any]


def _message(stored: StoredMessage, session_id: str) -> Message | InteractionRequest | _Notice | None:
    record, note = stored.record, stored.note
    content = record["content"]
    if marker_type(content) == INTERRUPTED:
        return Message(Role.ASSISTANT, [DataBlock(content["data"], INTERRUPTED_PART)], id=record["id"])
    data = content.get("data") if content.get("type") == "data" else None
    if note.get("transient"):
        return None  # no client keeps transient data in a message (stored as it came, any shape)
    if isinstance(data, dict) and not note.get("wrapped"):
        kind = data.get("type")
        if kind == "interaction_request" and isinstance(data.get("id"), str):
            return InteractionRequest(data["id"], str(data.get("kind") or ""), data.get("payload"))
        if kind == "error":
            detail = note.get("error_detail")
            return _Notice(data if detail is None else {**data, "detail": detail})
    message = content_to_message(content, record["id"], note)
    if isinstance(data, dict) and data.get("type") == "file" and isinstance(data.get("url"), str):
        message.content = [ResourceBlock(uri=data["url"], mime_type=data.get("media_type"))]
    if note:
        # Which message and turn it is part of, for formats that show them (Vercel: messages as
        # the client assembled them, steps, message metadata; AG-UI: the sub-agent of each).
        kept: dict[str, Any] = {
            k: note[k] for k in ("message_id", "turn", "usage", "render", "agent") if k in note
        }
        if "turn" in note:
            kept["session"] = session_id
        message.metadata = {**(message.metadata or {}), NOTE_KEY: kept}
    return message


def _note(message: Message) -> dict[str, Any]:
    note = (message.metadata or {}).get(NOTE_KEY)
    return note if isinstance(note, dict) else {}


def _place(
    msgs: list[Message], turn: Any, entry: dict[str, Any], leading: list[tuple[str, dict[str, Any]]]
) -> None:
    """Note a turn's request or error (``entry``: its stored data) on the content before it of the
    same turn (``notices_after``), else keep it for the turn's next content (``notices_before``),
    so a format that shows them as parts (Vercel) puts them where its stream did."""
    if not turn:
        return
    note = _note(msgs[-1]) if msgs else {}
    if note.get("turn") == turn:
        note.setdefault("notices_after", []).append(entry)
    else:
        leading.append((turn, entry))


def _keep_usage(msgs: list[Message], note: dict[str, Any]) -> None:
    """A content no client keeps as it is (transient data, an error, a request) may be its turn's
    last, the one that carries the turn's usage: the turn's content before it carries it instead."""
    note_msg = _note(msgs[-1]) if msgs else {}
    if note.get("usage") and note.get("turn") and note_msg.get("turn") == note["turn"]:
        note_msg["usage"] = note["usage"]


def _lead(message: Message, leading: list[tuple[str, dict[str, Any]]]) -> None:
    if not leading:
        return
    note = _note(message)
    kept = [entry for turn, entry in leading if turn == note.get("turn")]
    if kept:
        note["notices_before"] = kept
    leading.clear()


def _asides(
    note: dict[str, Any], key: str, session_id: str, adapter: WireFormat, version: Any
) -> Message | None:
    """The sources and custom events noted on a stored content under ``key`` that ``adapter``'s
    client (of ``version``) holds, as an assistant message of the same answer and turn (``None``:
    none)."""
    noted, held_custom = note.get(key), adapter.custom_block
    blocks: list[Block] = []
    for entry in noted if isinstance(noted, list) else ():
        block: Block | None = source_block(entry) if adapter.sources else None
        if block is None and held_custom is not None and (custom := custom_of(entry)) is not None:
            block = held_custom(custom.kind, custom.data, version)
        if block is not None:
            blocks.append(block)
    if not blocks:
        return None
    kept: dict[str, Any] = {k: note[k] for k in ("message_id", "turn") if k in note}
    if "turn" in note:
        kept["session"] = session_id
    return Message(Role.ASSISTANT, blocks, id=note.get("message_id"), metadata={NOTE_KEY: kept})


def render_conversation(
    records: Sequence[StoredMessage | dict[str, Any]], fmt: str, session_id: str = "", version: Any = None
) -> list[dict[str, Any]]:
    """A stored branch (``StoredMessage``s, or bare TaskMessages: no notes) -> the conversation in
    ``fmt``, as its adapter says a client of that format (of ``version``, for a format whose output
    depends on one: ``WireFormat.version``) holds it. A call already answered has left
    its request behind, so only open approvals are passed on. Messages a turn wrote carry
    ``metadata[NOTE_KEY]`` (its turn, the session ``session_id``, its usage) for the adapter; the
    stored form is the TaskMessages themselves."""
    adapter = get_format(fmt)
    stored = [r if isinstance(r, StoredMessage) else StoredMessage(r, {}, None) for r in records]
    if adapter.stored:
        return [m.record for m in stored]
    msgs: list[Message] = []
    requests: list[InteractionRequest] = []
    leading: list[tuple[str, dict[str, Any]]] = []
    asides = adapter.sources or adapter.custom_block is not None
    for message in stored:
        item = _message(message, session_id)
        if asides and "sources_before" in message.note:
            before = _asides(message.note, "sources_before", session_id, adapter, version)
            if before is not None:
                _lead(before, leading)
                msgs.append(before)
        if isinstance(item, Message):
            _lead(item, leading)
            msgs.append(item)
        else:
            note = message.note
            if isinstance(item, InteractionRequest):
                requests.append(item)
                entry = {
                    "type": "interaction_request",
                    "id": item.id,
                    "kind": item.kind,
                    "payload": item.payload,
                }
                _place(msgs, note.get("turn"), entry, leading)
            elif isinstance(item, _Notice):
                _place(msgs, note.get("turn"), item.data, leading)
            _keep_usage(msgs, note)
        if asides and "sources_after" in message.note:
            after = _asides(message.note, "sources_after", session_id, adapter, version)
            if after is not None:
                _lead(after, leading)
                msgs.append(after)
    if adapter.render_conversation is None:
        return adapter.render_messages(msgs)
    return adapter.render_conversation(msgs, pending_approvals(requests))
