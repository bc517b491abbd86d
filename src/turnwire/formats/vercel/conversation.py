"""A stored conversation as the ``useChat`` page holds it after its turns.

The store keeps one content per block; each carries (``Message.metadata[NOTE_KEY]``) the message
it is part of and the turn that wrote it. From those this module rebuilds what the client
assembled from the streams: one assistant UIMessage per answer under the stream's
``start.messageId`` (however many turns an approval split it into), the client's own message ids,
``step-start`` parts where each turn opened its steps (``with_steps``), and the stream's message
metadata (``sessionId``, then each turn's ``usage`` and ``traceId``, the last turn winning).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.formats import NOTE_KEY, without_note
from turnwire.formats.vercel.outbound import render_messages, with_steps
from turnwire.model import Block, Message, Role, ToolCallBlock

ANSWER_ROLES: Final = frozenset((Role.ASSISTANT, Role.TOOL))


@dataclass(slots=True)
class _Group:
    message: Message
    message_id: str | None
    turns: list[tuple[str | None, list[Block]]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def _side(msg: Message) -> str:
    if msg.role == Role.TOOL and all(isinstance(b, ToolCallBlock) for b in msg.content):
        return Role.ASSISTANT  # a call is the assistant's; only results speak as the tool
    return msg.role


def _groups(messages: Sequence[Message]) -> list[_Group]:
    """Consecutive answer messages join into one assistant message unless the store says they
    belong to different messages; a client's message stored as several contents is one again."""
    out: list[_Group] = []
    for msg in messages:
        note = (msg.metadata or {}).get(NOTE_KEY) or {}
        role, message_id, turn = _side(msg), note.get("message_id"), note.get("turn")
        last = out[-1] if out else None
        answer = (
            last is not None
            and role in ANSWER_ROLES
            and last.message.role in ANSWER_ROLES
            and (message_id is None or last.message_id in (None, message_id))
        )
        split_client_message = (
            last is not None
            and turn is None
            and message_id is not None
            and last.message_id == message_id
            and role == last.message.role
        )
        if last is not None and (answer or split_client_message):
            if role in ANSWER_ROLES:
                last.message.role = Role.ASSISTANT
            last.message.content.extend(msg.content)
            last.message_id = last.message_id or message_id
        else:
            copy = Message(role, list(msg.content), id=msg.id, metadata=without_note(msg.metadata))
            last = _Group(copy, message_id)
            out.append(last)
        last.turns.append((turn, list(msg.content)))
        if turn is not None:
            if note.get("session"):
                last.metadata.setdefault("sessionId", note["session"])
            if note.get("usage"):
                last.metadata["usage"] = note["usage"]
            last.metadata["traceId"] = turn
    return out


def _with_turns(groups: list[_Group]) -> list[Message]:
    out: list[Message] = []
    calls: set[str] = set()
    for group in groups:
        blocks: list[Block] = []
        i, turns = 0, group.turns
        while i < len(turns):
            turn = turns[i][0]
            run: list[Block] = []
            while i < len(turns) and turns[i][0] == turn:
                run.extend(turns[i][1])
                i += 1
            blocks.extend(with_steps(run, calls) if turn is not None else run)
            calls.update(b.id for b in run if isinstance(b, ToolCallBlock) and b.id)
        message = group.message
        message.content = blocks
        if group.metadata and message.role == Role.ASSISTANT:
            message.metadata = {**(message.metadata or {}), **group.metadata}
        out.append(message)
    return out


def render_conversation(messages: Sequence[Message], approvals: Mapping[str, str]) -> list[dict[str, Any]]:
    """What a ``useChat`` page holds after those turns (module docstring); calls still waiting for
    a decision in ``approval-requested`` with the approval id to echo back."""
    return render_messages(_with_turns(_groups(messages)), approvals=dict(approvals))
