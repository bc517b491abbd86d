"""A session's conversation as stored: which inbound messages are new, edits, and markers.

The store is an append-only log of TaskMessage contents. Two kinds of marker live in it as
``data`` contents (valid for every Agentex client):

- ``{"type": "turnwire.rewind", "keep": N}``: the client's history diverged from the stored one
  (an edit or a regenerate); from here on the conversation is the first ``N`` messages before the
  marker, then what follows it. Written by releases before branches (``store.branches``): a rewind
  now hangs the new messages on the ``N``-th message (``InboundPlan.parent_id``), a new branch
  beside the old one; migration step 6 turned the markers into branches.
- ``{"type": "turnwire.interrupted", "message_ids": [...], "reason": ...}``: the server stopped
  while those messages streamed (see ``store.recovery``); their content is what was last flushed.

Matching inbound to stored uses *anchors*: user and assistant texts, tool call ids and tool result
ids (each id counted once). Reasoning, data and empty texts are not compared: clients drop or
re-render them freely, so they can neither cause nor hide a divergence.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from turnwire.formats.agentex import content_to_message, render_message
from turnwire.formats.agentex.messages import NOTED_ROLES
from turnwire.model import Message, Role, ToolCallBlock

if TYPE_CHECKING:
    from turnwire.store.base import StoredMessage

REWIND: Final = "turnwire.rewind"
INTERRUPTED: Final = "turnwire.interrupted"
INTERRUPTED_REASON: Final = "the server stopped while this message was streaming"

Anchor = tuple[str, ...]


def marker_type(content: dict[str, Any]) -> str | None:
    """``REWIND`` / ``INTERRUPTED`` when ``content`` is one of turnwire's markers, else ``None``."""
    if content.get("type") != "data":
        return None
    data = content.get("data")
    kind = data.get("type") if isinstance(data, dict) else None
    return kind if kind in (REWIND, INTERRUPTED) else None


def rewind_content(keep: int) -> dict[str, Any]:
    return {"type": "data", "author": "user", "style": "static", "data": {"type": REWIND, "keep": keep}}


def interrupted_content(message_ids: list[str]) -> dict[str, Any]:
    """The marker stored after messages a dead server process left streaming."""
    data = {"type": INTERRUPTED, "message_ids": message_ids, "reason": INTERRUPTED_REASON}
    return {"type": "data", "author": "agent", "style": "static", "data": data}


def effective(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation a reader sees: stored TaskMessages (oldest first) with rewinds applied.

    Rewind markers themselves are left out; interruption markers stay (they say something).
    """
    out: list[dict[str, Any]] = []
    for record in records:
        content = record["content"]
        if marker_type(content) == REWIND:
            keep = content["data"].get("keep")
            del out[keep if isinstance(keep, int) and keep >= 0 else len(out) :]
            continue
        out.append(record)
    return out


def to_messages(records: Iterable[dict[str, Any]]) -> list[Message]:
    """Stored TaskMessages -> canonical messages (one per content, ids kept)."""
    return [content_to_message(r["content"], r["id"]) for r in records]


def branch_messages(stored: Iterable[StoredMessage]) -> list[Message]:
    """A stored branch -> canonical messages, with what the notes say (the client's message ids,
    reasoning part ids)."""
    return [content_to_message(m.record["content"], m.id, m.note) for m in stored]


def anchor(content: dict[str, Any]) -> Anchor | None:
    """What a content is compared by, or ``None`` when it is not compared at all."""
    kind = content.get("type")
    if kind == "text":
        text = (content.get("content") or "").strip()
        return ("text", content.get("author") or "", text) if text else None
    if kind == "tool_request":
        call_id = content.get("tool_call_id")
        return ("call", call_id) if call_id else ("call?", content.get("name") or "")
    if kind == "tool_response":
        call_id = content.get("tool_call_id")
        return ("result", call_id) if call_id else None
    return None


def _anchors(contents: Sequence[dict[str, Any]]) -> list[tuple[int, Anchor]]:
    """(position, anchor) of every compared content; a repeated call or result id counts once."""
    seen: set[Anchor] = set()
    out: list[tuple[int, Anchor]] = []
    for i, content in enumerate(contents):
        key = anchor(content)
        if key is None:
            continue
        if key[0] in ("call", "result"):
            if key in seen:
                continue
            seen.add(key)
        out.append((i, key))
    return out


@dataclass(slots=True)
class InboundPlan:
    """What to write for a client's history: ``keep`` (a rewind to that many stored messages, or
    ``None`` for none) and the ``new`` contents to append after it, with the ``notes`` the store
    keeps beside each (the client's message id; ``None``: nothing)."""

    keep: int | None = None
    new: list[dict[str, Any]] = field(default_factory=list)
    notes: list[dict[str, Any] | None] = field(default_factory=list)

    def contents(self) -> list[dict[str, Any]]:
        """The plan as a log without branches: the rewind marker first when there is one."""
        return self.new if self.keep is None else [rewind_content(self.keep), *self.new]

    def parent_id(self, stored: Sequence[dict[str, Any]]) -> str | None:
        """The stored message the new ones follow: the last of ``stored`` (the conversation the plan
        was made on), or with a rewind the last one kept (a new branch); ``None``: none."""
        kept = stored if self.keep is None else stored[: self.keep]
        return kept[-1]["id"] if kept else None


def plan_inbound(stored: Sequence[dict[str, Any]], inbound: Sequence[Message]) -> InboundPlan:
    """Decide which of a client's messages are new, given the stored conversation's contents.

    - The stored anchors are a prefix of the inbound ones (the client re-sent the whole history):
      only the inbound contents after the last matched anchor are new.
    - Otherwise (the client edited a message, or regenerated by dropping the last answer): the
      stored conversation is rewound to just after the last matched anchor and the rest of the
      inbound history is appended. The client's history wins; the log keeps the old branch.
    - An empty inbound history changes nothing.

    Echoed assistant reasoning/data right after the matched part is never stored twice: leading
    non-anchor assistant/tool contents of the new part are dropped; user contents are always kept.
    """
    if not inbound:
        return InboundPlan()
    units: list[dict[str, Any]] = []
    notes: list[dict[str, Any] | None] = []
    roles: list[str] = []
    for msg in inbound:
        for content in render_message(msg):
            units.append(content)
            # The client's own message id is kept, so its messages read back under their ids.
            note: dict[str, Any] = {"message_id": msg.id} if msg.id else {}
            if msg.role in NOTED_ROLES:  # an Agentex author is only user or agent
                note["role"] = msg.role
            notes.append(note or None)
            roles.append(msg.role)
    s, n = _anchors(stored), _anchors(units)
    k = 0
    while k < len(s) and k < len(n) and s[k][1] == n[k][1]:
        k += 1
    start = n[k - 1][0] + 1 if k else 0
    new = units[start:]
    new_roles = roles[start:]
    skip = 0
    while skip < len(new) and anchor(new[skip]) is None and new_roles[skip] != Role.USER:
        skip += 1
    keep = None if k == len(s) else (s[k - 1][0] + 1 if k else 0)
    return InboundPlan(keep, new[skip:], notes[start + skip :])


def continue_stored(stored: Sequence[Message], new: Sequence[Message]) -> list[Message]:
    """The history of a client that sent only its new messages: the stored conversation + ``new``.

    Tool calls and results ``new`` repeats from the stored conversation (a client replaying the
    paused assistant message with its decision) are not repeated in the history.
    """
    known: set[tuple[str, str]] = set()
    for msg in stored:
        for block in msg.content:
            if isinstance(block, ToolCallBlock) and block.id:
                known.add(("call", block.id))
    out = list(stored)
    for msg in new:
        blocks = [
            b for b in msg.content if not (isinstance(b, ToolCallBlock) and b.id and ("call", b.id) in known)
        ]
        if blocks or not msg.content:
            out.append(msg if len(blocks) == len(msg.content) else _with(msg, blocks))
    return out


def _with(msg: Message, blocks: list[Any]) -> Message:
    return Message(msg.role, blocks, id=msg.id, display_content=msg.display_content, metadata=msg.metadata)


__all__ = [
    "INTERRUPTED",
    "REWIND",
    "InboundPlan",
    "anchor",
    "branch_messages",
    "continue_stored",
    "effective",
    "interrupted_content",
    "marker_type",
    "plan_inbound",
    "rewind_content",
    "to_messages",
]
