"""FastAPI dependencies of the Agentex routes: the store and the hosted agents."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends
from starlette.requests import Request

from turnwire.server.context import current
from turnwire.server.doors.agentex.errors import AgentexError
from turnwire.store.base import Store


# ``async def``, though nothing here awaits: FastAPI runs a plain ``def`` dependency on a worker
# thread, a thread hand-off on every Agentex request for two attribute reads.
async def get_store(request: Request) -> Store:
    """The app's store; 503 while the app runs without one (a mounted router outside
    ``AppContext.running``)."""
    store = current(request).store
    if store is None:
        raise AgentexError(503, "No store is open for this server")
    return store


async def get_agents(request: Request) -> dict[str, Any]:
    """The agents the server hosts, name -> agent callable."""
    return current(request).agents


StoreDep = Annotated[Store, Depends(get_store)]
AgentsDep = Annotated[dict[str, Any], Depends(get_agents)]
