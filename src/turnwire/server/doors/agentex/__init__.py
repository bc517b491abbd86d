"""Agentex-compatible HTTP API: messages, tasks, agents and agent RPC, served from the store.

``router`` is included by ``create_router``, which binds it to the app's ``AppContext`` (its store
and agents).
"""

from __future__ import annotations

from fastapi import APIRouter

from turnwire.server.doors.agentex import agents, messages, spans, tasks
from turnwire.server.doors.agentex.deps import get_agents, get_store

router = APIRouter()
router.include_router(messages.router)
router.include_router(tasks.router)
router.include_router(agents.router)
router.include_router(spans.router)


__all__ = ["get_agents", "get_store", "router"]
