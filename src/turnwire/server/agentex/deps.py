"""FastAPI dependencies of the Agentex routes: the store and the hosted agents."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends
from starlette.requests import Request

from turnwire.server.agentex.errors import AgentexError
from turnwire.store.base import Store


def get_store(request: Request) -> Store:
    """The app's store (``app.state.store``); 503 if the app was started without one."""
    store = getattr(request.app.state, "store", None)
    if store is None:
        raise AgentexError(503, "No store is configured for this server (app.state.store is unset)")
    return store


def get_agents(request: Request) -> dict[str, Any]:
    """The agents the server hosts, name -> agent callable (``app.state.agents``)."""
    agents = getattr(request.app.state, "agents", None)
    return agents if isinstance(agents, dict) else {}


StoreDep = Annotated[Store, Depends(get_store)]
AgentsDep = Annotated[dict[str, Any], Depends(get_agents)]
