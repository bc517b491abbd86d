"""The ``Store`` protocol: what the server and runtime may ask of a conversation store.

Records leave the store as JSON-ready dicts in Agentex wire shape (``TaskMessage``, ``Task``) with
ISO 8601 UTC timestamps, so routes can return them as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol, runtime_checkable

from turnwire.model import Message
from turnwire.store.filters import MessageFilter

if TYPE_CHECKING:
    from turnwire.store.conversation_list import ConversationRow

LAST: Final = "*last*"
"""``create_messages``' default ``parent_id``: hang the first new message on the task's last one."""
TERMINAL_STATUSES = frozenset(("COMPLETED", "FAILED", "CANCELED", "TERMINATED", "TIMED_OUT"))
TASK_STATUSES = frozenset(("RUNNING", "INTERRUPTED", "DELETED", *TERMINAL_STATUSES))


@dataclass(slots=True)
class Idempotency:
    """An ``Idempotency-Key`` and a fingerprint of the request it came with."""

    key: str
    fingerprint: str


@dataclass(slots=True)
class Page:
    data: list[dict[str, Any]]
    next_cursor: str | None
    has_more: bool


class NewRow(NamedTuple):
    """A message the recorder creates: its own id and stamps (µs), content and note as JSON text,
    and its parent (``None``: the first message of its branch; ``LAST``: the task's last message,
    allowed on the first row of a write only)."""

    id: str
    content: str
    streaming_status: str | None
    created_at: int
    updated_at: int
    note: str | None = None
    parent_id: str | None = None


class StoredMessage(NamedTuple):
    """A message as the store holds it: the TaskMessage (exactly the Agentex wire's), what the
    store knows beside it (``note``: ``formats.agentex.annotations``; ``{}`` when nothing) and the
    message before it in its branch (``None``: the first)."""

    record: dict[str, Any]
    note: dict[str, Any]
    parent_id: str | None

    @property
    def id(self) -> str:
        return self.record["id"]


@dataclass(slots=True)
class Branch:
    """One branch of a conversation: the path from its first message to ``leaf_id``."""

    leaf_id: str
    fork_id: str | None
    """The message it shares with another branch and leaves it after (``None``: it shares none)."""
    created_at: str
    """When it started: its first message after the fork (ISO 8601)."""
    latest: bool
    """The branch a conversation is read from by default (the one its latest message is on)."""


class SessionTask(NamedTuple):
    """A session's task as ``Store.session_task`` finds or creates it."""

    task: dict[str, Any]
    created: bool
    """This call created the task (so it has no messages yet)."""
    clock: int
    """The task's message clock when it was read, as ``message_clock`` returns it."""


class RowChange(NamedTuple):
    """A new content and note (JSON text), status and wanted ``updated_at`` for a message the
    recorder made."""

    id: str
    content: str
    streaming_status: str | None
    updated_at: int
    note: str | None = None


class Claim(NamedTuple):
    """An approval decision a request carries: the SHA-256 hex of its token, its call, its answer."""

    token_digest: str
    tool_call_id: str
    approved: bool


class Claimed(NamedTuple):
    """The decision recorded for a token (the first one ever sent) and whether this request sent it."""

    approved: bool
    first: bool


@runtime_checkable
class Store(Protocol):
    async def open(self) -> None:
        """Connect and apply pending migrations."""

    async def close(self) -> None: ...

    # ----------------------------------------------------------------- tasks
    async def create_task(
        self,
        *,
        name: str | None = None,
        params: dict[str, Any] | None = None,
        task_metadata: dict[str, Any] | None = None,
        idempotency: Idempotency | None = None,
        tenant: str = "",
    ) -> dict[str, Any]:
        """Get-or-create by ``name`` (names are unique per tenant): an existing task gets ``params``
        (if given) overwritten; ``task_metadata`` and ``tenant`` apply only on creation."""

    async def session_task(
        self, session_id: str, *, tenant: str = "", agent: str | None = None
    ) -> SessionTask:
        """The task of ``tenant`` whose id is ``session_id``, else its live one named ``session_id``,
        else a new task of that name, recording ``agent`` as its agent; whether this call created
        it, and its message clock. ``ConflictError`` if the name belongs to a deleted task."""

    async def session_task_soon(
        self, session_id: str, *, tenant: str = "", agent: str | None = None
    ) -> SessionTask:
        """``session_task`` for a turn about to start: a new task's row may be written after this
        returns, ahead of every write queued after it (SQLite; see ``SqlStore``)."""

    async def get_task(self, task_id: str, *, tenant: str | None = None) -> dict[str, Any]:
        """The task; ``NotFoundError`` if missing, deleted or not ``tenant``'s (``None``: any)."""

    async def get_task_by_name(self, name: str, *, tenant: str = "") -> dict[str, Any]: ...

    async def list_tasks(
        self,
        *,
        status: str | None = None,
        task_metadata: dict[str, Any] | None = None,
        limit: int = 50,
        offset: int = 0,
        order_by: str = "created_at",
        descending: bool = True,
        tenant: str | None = None,
    ) -> list[dict[str, Any]]: ...

    async def list_conversations(
        self,
        *,
        limit: int = 20,
        cursor: str | None = None,
        search: str | None = None,
        only: str | None = None,
        tenant: str | None = None,
    ) -> tuple[list[ConversationRow], str | None]:
        """A page of live tasks as conversations, most recent activity first, and the next page's
        cursor (``store.conversation_list``)."""

    async def label_task(
        self, task_id: str, *, title: str | None = None, agent: str | None = None, tenant: str | None = None
    ) -> None:
        """Set a conversation's title and/or agent (``store.conversation_list``)."""

    async def delete_task(self, task_id: str, *, tenant: str | None = None) -> dict[str, Any]:
        """Soft delete: status DELETED, messages kept; the task then reads as not found."""

    async def transition_task(
        self, task_id: str, status: str, reason: str | None = None, *, tenant: str | None = None
    ) -> dict[str, Any]:
        """RUNNING/INTERRUPTED -> ``status``; any other current status is a ``ConflictError``."""

    async def claim_decisions(self, task_id: str, claims: Sequence[Claim]) -> dict[str, Claimed]:
        """Record each approval decision the first time its token is sent, or take over one whose
        last turn ended without running its call (atomically, across processes); by token digest,
        the decision that holds and whether this call holds it now."""

    async def settle_decisions(self, task_id: str, done: Sequence[str], released: Sequence[str]) -> None:
        """After a turn that held claims: ``done`` tokens' calls ran (final), ``released`` ones did
        not (the next request carrying them may take them)."""

    # ----------------------------------------------------------------- messages
    async def create_messages(
        self,
        task_id: str,
        contents: Sequence[dict[str, Any]],
        *,
        created_at: int | None = None,
        streaming_status: str | None = None,
        idempotency: Idempotency | None = None,
        owned: bool = False,
        notes: Sequence[dict[str, Any] | None] | None = None,
        parent_id: str | None = LAST,
    ) -> list[dict[str, Any]]:
        """Append normalised contents in order, in one transaction: all stored or none.

        ``notes``: what the store keeps beside each content (``StoredMessage.note``). The first
        message's parent is ``parent_id`` (``None``: it starts a branch; ``LAST``, the default: the
        task's last stored message); each next one's parent is the one before it.

        ``owned``: the messages belong to this server process's writer lease (the recorder's
        streamed messages); if the process dies while they are ``IN_PROGRESS`` they are repaired.

        Message *i* gets ``created_at = base + i ms``; ``base`` is the caller's time, else
        ``max(now, last server time of the task + 1 ms)`` so server-stamped order equals arrival
        order. ``NotFoundError`` for an unknown or deleted task.
        """

    async def append_messages(
        self, task_id: str, messages: Sequence[Message], *, streaming_status: str | None = "DONE"
    ) -> list[dict[str, Any]]:
        """Canonical messages (e.g. a folded turn) -> stored TaskMessages, one per block."""

    async def get_message(self, message_id: str) -> dict[str, Any]: ...

    async def thread_messages(self, task_id: str) -> list[StoredMessage]:
        """Every message of the task (every branch), oldest first, with its note and parent."""

    async def last_message_id(self, task_id: str) -> str | None:
        """The id of the task's last stored message (by sequence), ``None`` if it has none."""

    async def list_branches(self, task_id: str) -> list[Branch]:
        """The task's branches, the oldest first (``branches.branches``)."""

    async def read_branch(self, task_id: str, leaf_id: str | None = None) -> list[StoredMessage]:
        """The branch ending at ``leaf_id`` (default: the latest), first message first; rewind
        markers left out. ``NotFoundError`` if ``leaf_id`` is no message of the task."""

    async def update_message(
        self,
        message_id: str,
        *,
        task_id: str | None,
        content: dict[str, Any] | None = None,
        streaming_status: str | None = None,
    ) -> dict[str, Any]:
        """Replace content and/or set ``streaming_status`` (``None`` keeps it). Only the given fields
        are written, so a concurrent writer's fields are never overwritten with stale values."""

    async def update_messages(
        self, task_id: str, updates: Mapping[str, dict[str, Any]], *, tenant: str | None = None
    ) -> list[dict[str, Any]]:
        """Replace contents of several messages of ``task_id`` atomically, in map order.

        Everything is checked first: a missing id -> ``NotFoundError``, a message of another task
        -> ``ConflictError``, with ``tenant`` a task that is not a live one of that tenant's ->
        ``NotFoundError`` (in the same transaction); then nothing is written."""

    async def update_messages_json(
        self, task_id: str, updates: Mapping[str, dict[str, Any]], *, tenant: str | None = None
    ) -> bytes:
        """``update_messages``, its answer as the bytes ``orjson.dumps`` would make of it (what the
        Agentex batch route sends): no list of dicts, no second serialisation of the contents."""

    async def update_contents(self, task_id: str, updates: Mapping[str, dict[str, Any]]) -> None:
        """Replace the contents of messages of ``task_id`` in one statement, without reading them
        first (the recorder's periodic flush of messages it created). Ids that are missing or of
        another task are left alone; status is kept."""

    async def update_notes(self, task_id: str, notes: Mapping[str, dict[str, Any]]) -> None:
        """Replace the notes (``StoredMessage.note``) of messages of ``task_id``; their contents,
        status and stamps are left as they are. Ids that are missing or of another task are left
        alone."""

    async def message_clock(self, task_id: str) -> int:
        """The task's latest server stamp (µs): a writer stamping its own messages starts after it.
        ``NotFoundError`` for an unknown or deleted task."""

    async def write_flush(self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange]) -> None:
        """One transaction: insert ``new`` in order (next sequence numbers, the given ids and stamps;
        ``IN_PROGRESS`` ones owned by this process's writer lease), then apply ``changed`` to
        messages of ``task_id`` (``updated_at`` never moves back). ``NotFoundError`` if ``new`` is
        not empty and the task is unknown or deleted; then nothing is written."""

    async def list_messages(
        self,
        task_id: str,
        *,
        limit: int = 50,
        offset: int = 0,
        order_by: str = "created_at",
        descending: bool = True,
        filters: list[MessageFilter] | None = None,
    ) -> list[dict[str, Any]]:
        """Ordered by ``order_by`` then by sequence ascending (ties never reorder)."""

    async def page_messages(
        self,
        task_id: str,
        *,
        limit: int = 50,
        cursor: str | None = None,
        newer: bool = False,
        filters: list[MessageFilter] | None = None,
    ) -> Page:
        """Newest first. ``older`` pages continue below the cursor; ``newer`` pages are the
        messages directly above it. ``InputError`` for a cursor that is not ours."""
