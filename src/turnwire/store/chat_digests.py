"""Conversation digests of stateless Chat Completions clients → their session, per tenant
(``chat_digests``; ``formats.openai.continuity`` says what is digested).

A store without SQL underneath (a library caller's own ``Store``) keeps them in this process.
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from turnwire.store.clock import now_us
from turnwire.store.schema import chat_digests
from turnwire.store.tenant_view import sql_db

C = chat_digests.c

_local: dict[tuple[str, str], str] = {}


async def remember(store: Any, tenant: str, digest: str, session_id: str) -> None:
    """The conversation with ``digest`` is session ``session_id`` (a later turn's wins)."""
    db = sql_db(store)
    if db is None:
        _local[(tenant, digest)] = session_id
        return
    async with db.write() as conn:
        await conn.execute(sa.delete(chat_digests).where(C.tenant == tenant, C.digest == digest))
        await conn.execute(
            chat_digests.insert().values(
                tenant=tenant, digest=digest, session_id=session_id, created_at=now_us()
            )
        )


async def session_of(store: Any, tenant: str, digest: str) -> str | None:
    db = sql_db(store)
    if db is None:
        return _local.get((tenant, digest))
    async with db.read() as conn:
        found = await conn.execute(sa.select(C.session_id).where(C.tenant == tenant, C.digest == digest))
        return found.scalar()
