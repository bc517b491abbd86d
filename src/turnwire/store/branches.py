"""A conversation as a tree: every message knows its parent, a branch is the path to a leaf.

A rewind (a client's edit or regenerate) hangs its first message on an earlier message of the
branch it rewinds, so the old branch stays whole beside the new one. Reading a conversation reads
one branch, the latest by default: the one its most recently stored message is on (what a reader
saw before branches existed). Rewind markers of the previous release (noted ``rewind`` by
migration step 6) stay in the log, on no branch.
"""

from __future__ import annotations

from collections.abc import Sequence

from turnwire.store.base import Branch, StoredMessage
from turnwire.store.errors import NotFoundError


def _marker(message: StoredMessage) -> bool:
    return "rewind" in message.note


def branch(messages: Sequence[StoredMessage], leaf_id: str | None = None) -> list[StoredMessage]:
    """The branch of ``messages`` (a task's, oldest first) that ends at ``leaf_id`` (default: the
    latest), first message first, rewind markers left out. ``NotFoundError`` for an unknown leaf."""
    if not messages:
        if leaf_id is not None:
            raise NotFoundError(leaf_id)
        return []
    by_id = {m.id: m for m in messages}
    tip = by_id.get(leaf_id if leaf_id is not None else messages[-1].id)
    if tip is None:
        raise NotFoundError(leaf_id or "")
    path: list[StoredMessage] = []
    seen: set[str] = set()
    node: StoredMessage | None = tip
    while node is not None and node.id not in seen:  # a cycle cannot be written; never loop on one
        seen.add(node.id)
        path.append(node)
        node = by_id.get(node.parent_id) if node.parent_id is not None else None
    path.reverse()
    return [m for m in path if not _marker(m)]


def branches(messages: Sequence[StoredMessage]) -> list[Branch]:
    """Every branch of ``messages`` (a task's, oldest first): one per leaf, the oldest first."""
    shown = [m for m in messages if not _marker(m)]
    children: dict[str | None, list[StoredMessage]] = {}
    by_id = {m.id: m for m in messages}
    for m in shown:
        children.setdefault(_shown_parent(m, by_id), []).append(m)
    latest = branch(messages)[-1].id if shown else None
    out = []
    for leaf in shown:
        if leaf.id in children:
            continue
        # Up from the leaf to the first message another branch shares (one with several children).
        first = leaf
        fork = _shown_parent(first, by_id)
        while fork is not None and len(children[fork]) == 1:
            first = by_id[fork]
            fork = _shown_parent(first, by_id)
        out.append(Branch(leaf.id, fork, first.record["created_at"], leaf.id == latest))
    return out


def _shown_parent(message: StoredMessage, by_id: dict[str, StoredMessage]) -> str | None:
    """The nearest ancestor that is no rewind marker."""
    parent = message.parent_id
    seen = set()
    while parent is not None and parent in by_id and _marker(by_id[parent]) and parent not in seen:
        seen.add(parent)
        parent = by_id[parent].parent_id
    return parent if parent in by_id else None


class BranchQueries:
    """``list_branches`` and ``read_branch`` (mixed into ``SqlStore``)."""

    async def thread_messages(self, task_id: str) -> list[StoredMessage]:
        raise NotImplementedError  # provided by MessageQueries

    async def list_branches(self, task_id: str) -> list[Branch]:
        return branches(await self.thread_messages(task_id))

    async def read_branch(self, task_id: str, leaf_id: str | None = None) -> list[StoredMessage]:
        return branch(await self.thread_messages(task_id), leaf_id)
