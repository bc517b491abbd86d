"""``/agents`` routes for the agents this server hosts, and their JSON-RPC endpoint.

Agents are the app context's (name -> agent callable); an agent's id is a UUID derived
from its name, so it is stable across restarts and workers.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import Response

from turnwire.server.doors.agentex.deps import AgentsDep, StoreDep
from turnwire.server.doors.agentex.errors import AgentexRoute, json_response
from turnwire.server.doors.agentex.rpc import RPC_BODY, handle_rpc
from turnwire.store.errors import NotFoundError

router = APIRouter(prefix="/agents", tags=["agentex agents"], route_class=AgentexRoute)

_NAMESPACE = uuid.UUID("5b0e3c1e-2f52-4d8e-9a57-7475726e7769")
_STARTED = datetime.now(UTC).isoformat()


def agent_id(name: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, name))


def describe(name: str, agent: Any) -> dict[str, Any]:
    """The Agentex ``Agent`` record of a hosted agent."""
    doc = (getattr(agent, "__doc__", None) or "").strip().split("\n", 1)[0]
    return {
        "id": agent_id(name),
        "name": name,
        "description": doc or name,
        "acp_type": "sync",
        "status": "Ready",
        "status_reason": None,
        "agent_input_type": "text",
        "created_at": _STARTED,
        "updated_at": _STARTED,
        "registered_at": _STARTED,
        "registration_metadata": None,
        "production_deployment_id": None,
    }


def _by_id(agents: dict[str, Any], key: str) -> tuple[str, Any]:
    for name, agent in agents.items():
        if agent_id(name) == key:
            return name, agent
    raise NotFoundError(key)


def _by_name(agents: dict[str, Any], name: str) -> tuple[str, Any]:
    if name not in agents:
        raise NotFoundError(name)
    return name, agents[name]


@router.get("", summary="List Agents")
async def list_agents(agents: AgentsDep) -> Response:
    return json_response([describe(name, agent) for name, agent in agents.items()])


@router.get("/name/{agent_name}", summary="Retrieve Agent By Name")
async def retrieve_by_name(agent_name: str, agents: AgentsDep) -> Response:
    return json_response(describe(*_by_name(agents, agent_name)))


@router.post("/name/{agent_name}/rpc", summary="RPC By Name", openapi_extra=RPC_BODY)
async def rpc_by_name(
    agent_name: str,
    request: Request,
    agents: AgentsDep,
    store: StoreDep,
) -> Response:
    return await handle_rpc(request, store, _by_name(agents, agent_name)[0])


@router.get("/{agent_id}", summary="Retrieve Agent")
async def retrieve(agent_id: str, agents: AgentsDep) -> Response:
    return json_response(describe(*_by_id(agents, agent_id)))


@router.post("/{agent_id}/rpc", summary="RPC", openapi_extra=RPC_BODY)
async def rpc(
    agent_id: str,
    request: Request,
    agents: AgentsDep,
    store: StoreDep,
) -> Response:
    return await handle_rpc(request, store, _by_id(agents, agent_id)[0])
