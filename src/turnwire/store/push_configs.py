"""A2A push notification configs, per tenant and task, in the store (``a2a_push_configs``).

A client may register a webhook through one worker while the task's turn runs on another: the
config lives in the database both share, and the running worker reads it while it streams. A
store without SQL underneath (a library caller's own ``Store``) keeps them in this process.
"""

from __future__ import annotations

from typing import Any

import orjson
import sqlalchemy as sa

from turnwire.store.clock import now_us
from turnwire.store.schema import push_configs
from turnwire.store.tenant_view import sql_db

C = push_configs.c

_local: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
"""(tenant, task id) → config id → config, for stores that are not SQL."""


async def save(store: Any, tenant: str, task_id: str, config: dict[str, Any]) -> None:
    """Add ``config`` (its ``id`` unique per task: a second save with the same id replaces it)."""
    db = sql_db(store)
    if db is None:
        _local.setdefault((tenant, task_id), {})[config["id"]] = config
        return
    key = (C.tenant == tenant) & (C.task_id == task_id) & (C.id == config["id"])
    async with db.write() as conn:
        await conn.execute(sa.delete(push_configs).where(key))
        await conn.execute(
            push_configs.insert().values(
                tenant=tenant,
                task_id=task_id,
                id=config["id"],
                config=orjson.dumps(config).decode(),
                created_at=now_us(),
            )
        )


async def load(store: Any, tenant: str, task_id: str) -> list[dict[str, Any]]:
    """The task's configs, oldest first."""
    db = sql_db(store)
    if db is None:
        return list(_local.get((tenant, task_id), {}).values())
    query = sa.select(C.config).where(C.tenant == tenant, C.task_id == task_id).order_by(C.created_at, C.id)
    async with db.read() as conn:
        return [orjson.loads(row) for row in (await conn.execute(query)).scalars()]


async def delete(store: Any, tenant: str, task_id: str, config_id: str) -> bool:
    """Forget one config; whether there was one."""
    db = sql_db(store)
    if db is None:
        return _local.get((tenant, task_id), {}).pop(config_id, None) is not None
    key = (C.tenant == tenant) & (C.task_id == task_id) & (C.id == config_id)
    async with db.write() as conn:
        gone = await conn.execute(sa.delete(push_configs).where(key).returning(C.id))
        return gone.first() is not None
