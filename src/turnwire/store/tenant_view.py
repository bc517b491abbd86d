"""``TenantStore``: the store as one tenant sees it.

Every task operation is asked of the store for ``tenant``; every operation on a task's messages
first checks that the task is the tenant's. Another tenant's task reads exactly like a task that
does not exist (``NotFoundError``, an empty list), so ids never leak. A task's tenant never changes,
so ids already found to be the tenant's are remembered for the view's life (one request): the turn
pipeline's writes cost no extra read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from turnwire.model import Message
from turnwire.store.base import (
    Branch,
    Claim,
    Claimed,
    Idempotency,
    NewRow,
    Page,
    RowChange,
    SessionTask,
    Store,
    StoredMessage,
)
from turnwire.store.conversation_list import ConversationRow
from turnwire.store.cursor import decode_cursor
from turnwire.store.errors import NotFoundError
from turnwire.store.filters import MessageFilter


def sql_store_of(store: Any) -> Any:
    """The ``SqlStore`` under ``store`` (itself, or under a tenant's view), else ``None``."""
    while store is not None and not hasattr(store, "db"):
        store = getattr(store, "inner", None)
    return store


def sql_db(store: Any) -> Any:
    """The SQL database under ``store`` (``sql_store_of``), else ``None``."""
    sql = sql_store_of(store)
    return None if sql is None else sql.db


class TenantStore:
    """``inner`` restricted to ``tenant``'s tasks (``""``: the tasks created without a key)."""

    def __init__(self, inner: Store, tenant: str) -> None:
        self.inner = inner
        self.tenant = tenant
        self._owned: set[str] = set()

    @property
    def dialect(self) -> str:
        return getattr(self.inner, "dialect", "")

    def _note(self, task: dict[str, Any]) -> dict[str, Any]:
        self._owned.add(task["id"])
        return task

    async def owns(self, task_id: str) -> bool:
        """Whether ``task_id`` is a live task of this tenant."""
        if task_id in self._owned:
            return True
        try:
            await self.get_task(task_id)
        except NotFoundError:
            return False
        return True

    def _scoped(self, idem: Idempotency | None) -> Idempotency | None:
        """An ``Idempotency-Key`` within the tenant: two tenants' equal keys never meet (a digest,
        so the stored key stays within its column)."""
        if idem is None or not self.tenant:
            return idem
        key = hashlib.sha256(f"{self.tenant}\x1f{idem.key}".encode()).hexdigest()
        return Idempotency(key, idem.fingerprint)

    async def _require(self, task_id: str) -> None:
        if not await self.owns(task_id):
            raise NotFoundError(task_id)

    # ----------------------------------------------------------------- tasks
    async def create_task(
        self,
        *,
        name: str | None = None,
        params: dict[str, Any] | None = None,
        task_metadata: dict[str, Any] | None = None,
        idempotency: Idempotency | None = None,
    ) -> dict[str, Any]:
        task = await self.inner.create_task(
            name=name,
            params=params,
            task_metadata=task_metadata,
            idempotency=self._scoped(idempotency),
            tenant=self.tenant,
        )
        return self._note(task)

    async def session_task(self, session_id: str, *, agent: str | None = None) -> SessionTask:
        found = await self.inner.session_task(session_id, tenant=self.tenant, agent=agent)
        self._note(found.task)
        return found

    async def session_task_soon(self, session_id: str, *, agent: str | None = None) -> SessionTask:
        found = await self.inner.session_task_soon(session_id, tenant=self.tenant, agent=agent)
        self._note(found.task)
        return found

    async def get_task(self, task_id: str) -> dict[str, Any]:
        return self._note(await self.inner.get_task(task_id, tenant=self.tenant))

    async def get_task_by_name(self, name: str) -> dict[str, Any]:
        return self._note(await self.inner.get_task_by_name(name, tenant=self.tenant))

    async def list_tasks(self, **query: Any) -> list[dict[str, Any]]:
        return await self.inner.list_tasks(**query, tenant=self.tenant)

    async def list_conversations(self, **query: Any) -> tuple[list[ConversationRow], str | None]:
        return await self.inner.list_conversations(**query, tenant=self.tenant)

    async def label_task(self, task_id: str, *, title: str | None = None, agent: str | None = None) -> None:
        await self.inner.label_task(task_id, title=title, agent=agent, tenant=self.tenant)

    async def delete_task(self, task_id: str) -> dict[str, Any]:
        self._owned.discard(task_id)
        return await self.inner.delete_task(task_id, tenant=self.tenant)

    async def transition_task(self, task_id: str, status: str, reason: str | None = None) -> dict[str, Any]:
        return await self.inner.transition_task(task_id, status, reason, tenant=self.tenant)

    async def claim_decisions(self, task_id: str, claims: Sequence[Claim]) -> dict[str, Claimed]:
        await self._require(task_id)
        return await self.inner.claim_decisions(task_id, claims)

    async def settle_decisions(self, task_id: str, done: Sequence[str], released: Sequence[str]) -> None:
        await self._require(task_id)
        await self.inner.settle_decisions(task_id, done, released)

    # ----------------------------------------------------------------- messages
    async def create_messages(self, task_id: str, contents: Sequence[dict[str, Any]], **kw: Any) -> list[Any]:
        await self._require(task_id)
        if "idempotency" in kw:
            kw["idempotency"] = self._scoped(kw["idempotency"])
        return await self.inner.create_messages(task_id, contents, **kw)

    async def append_messages(
        self, task_id: str, messages: Sequence[Message], *, streaming_status: str | None = "DONE"
    ) -> list[dict[str, Any]]:
        await self._require(task_id)
        return await self.inner.append_messages(task_id, messages, streaming_status=streaming_status)

    async def get_message(self, message_id: str) -> dict[str, Any]:
        record = await self.inner.get_message(message_id)
        if not await self.owns(record["task_id"]):
            raise NotFoundError(message_id)
        return record

    async def update_message(self, message_id: str, *, task_id: str | None, **kw: Any) -> dict[str, Any]:
        # The message's own task decides, whatever task the caller names.
        await self.get_message(message_id)
        if task_id is not None:
            await self._require(task_id)
        return await self.inner.update_message(message_id, task_id=task_id, **kw)

    # The batch updates check the tenant inside their own transaction: no separate lookup first.
    async def update_messages(
        self, task_id: str, updates: Mapping[str, dict[str, Any]]
    ) -> list[dict[str, Any]]:
        return await self.inner.update_messages(task_id, updates, tenant=self.tenant)

    async def update_messages_json(self, task_id: str, updates: Mapping[str, dict[str, Any]]) -> bytes:
        return await self.inner.update_messages_json(task_id, updates, tenant=self.tenant)

    async def update_contents(self, task_id: str, updates: Mapping[str, dict[str, Any]]) -> None:
        if await self.owns(task_id):
            await self.inner.update_contents(task_id, updates)

    async def update_notes(self, task_id: str, notes: Mapping[str, dict[str, Any]]) -> None:
        if await self.owns(task_id):
            await self.inner.update_notes(task_id, notes)

    async def message_clock(self, task_id: str) -> int:
        await self._require(task_id)
        return await self.inner.message_clock(task_id)

    async def write_flush(self, task_id: str, new: Sequence[NewRow], changed: Sequence[RowChange]) -> None:
        if await self.owns(task_id):
            await self.inner.write_flush(task_id, new, changed)
        elif new:
            raise NotFoundError(task_id)

    async def list_messages(self, task_id: str, **query: Any) -> list[dict[str, Any]]:
        if not await self.owns(task_id):
            return []
        return await self.inner.list_messages(task_id, **query)

    async def thread_messages(self, task_id: str) -> list[StoredMessage]:
        if not await self.owns(task_id):
            return []
        return await self.inner.thread_messages(task_id)

    async def last_message_id(self, task_id: str) -> str | None:
        return await self.inner.last_message_id(task_id) if await self.owns(task_id) else None

    async def list_branches(self, task_id: str) -> list[Branch]:
        return await self.inner.list_branches(task_id) if await self.owns(task_id) else []

    async def read_branch(self, task_id: str, leaf_id: str | None = None) -> list[StoredMessage]:
        if not await self.owns(task_id):
            if leaf_id is not None:
                raise NotFoundError(leaf_id)
            return []
        return await self.inner.read_branch(task_id, leaf_id)

    async def page_messages(
        self,
        task_id: str,
        *,
        limit: int = 50,
        cursor: str | None = None,
        newer: bool = False,
        filters: list[MessageFilter] | None = None,
    ) -> Page:
        if not await self.owns(task_id):
            # Checked like the store checks it, so a foreign id answers as an unknown one.
            if cursor:
                decode_cursor(task_id, cursor)
            return Page([], None, False)
        return await self.inner.page_messages(
            task_id, limit=limit, cursor=cursor, newer=newer, filters=filters
        )
