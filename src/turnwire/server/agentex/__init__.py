"""Agentex-compatible HTTP API: messages, tasks, agents and agent RPC, served from the store.

``include_agentex_routes(app)`` mounts it; the app must set ``app.state.store`` (a ``Store``) and
may set ``app.state.agents`` (name -> agent callable).
"""

from __future__ import annotations

from fastapi import APIRouter, FastAPI

from turnwire.server.agentex import agents, messages, tasks
from turnwire.server.agentex.deps import get_agents, get_store

router = APIRouter()
router.include_router(messages.router)
router.include_router(tasks.router)
router.include_router(agents.router)


def include_agentex_routes(app: FastAPI) -> None:
    """Mount every Agentex route on ``app``."""
    app.include_router(router)


__all__ = ["get_agents", "get_store", "include_agentex_routes", "router"]
