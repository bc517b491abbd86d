"""``GET /agui/capabilities`` and ``GET /agents/{name}/agui/capabilities``: the agent's AG-UI 1.0
``AgentCapabilities`` document (capability discovery: ``docs/concepts/capabilities.mdx`` of AG-UI).

``AbstractAgent.getCapabilities()`` is optional in ``@ag-ui/client`` and ``HttpAgent`` has none;
integrations serve the document at ``<agent url>/capabilities``, and ``ReconnectingHttpAgent``
(``/agui/client.js``) reads it there. Absent means unknown, so the document declares only what
is known:

- what the door does for every agent: SSE streaming, resumable streams (the connect route's
  event ids), no WebSocket, protobuf or push; the interrupt protocol (``resume``), without
  ``editedArgs``;
- what the agent says of itself: its tools (``agent.tools``, as ``openai_chat`` agents have
  them: their JSON Schemas, and approvals if one needs them), and its own ``agui_capabilities``
  (an ``AgentCapabilities`` dict, merged over the rest key by key).
"""

from __future__ import annotations

from typing import Any, Final

from fastapi import APIRouter, Request
from starlette.responses import JSONResponse, Response

from turnwire.runtime import Agent
from turnwire.server.context import current

OWN_CAPABILITIES: Final = "agui_capabilities"
"""The agent attribute holding what it declares itself (an ``AgentCapabilities`` dict)."""
_HEADERS: Final = {"cache-control": "no-cache"}


def capabilities(agent: Agent, agent_name: str) -> dict[str, Any]:
    """The ``AgentCapabilities`` of ``agent`` served as ``agent_name`` (module docstring)."""
    doc: dict[str, Any] = {
        "identity": {"name": agent_name, "type": "turnwire", "description": _description(agent, agent_name)},
        "transport": {
            "streaming": True,
            "websocket": False,
            "httpBinary": False,
            "pushNotifications": False,
            "resumable": True,
        },
        "humanInTheLoop": {"supported": True, "interrupts": True, "approveWithEdits": False},
    }
    tools = _tools(agent)
    if tools:
        doc["tools"] = {"supported": True, "items": [_tool(t) for t in tools]}
        if any(getattr(t, "requires_approval", False) for t in tools):
            doc["humanInTheLoop"]["approvals"] = True
    own = getattr(agent, OWN_CAPABILITIES, None)
    return _merged(doc, own) if isinstance(own, dict) else doc


def _tools(agent: Agent) -> list[Any]:
    tools = getattr(agent, "tools", None)
    values = list(tools.values()) if isinstance(tools, dict) else list(tools or ())
    return [t for t in values if isinstance(getattr(t, "name", None), str) and t.name]


def _tool(tool: Any) -> dict[str, Any]:
    parameters = getattr(tool, "parameters", None)
    return {
        "name": tool.name,
        "description": getattr(tool, "description", "") or tool.name,
        "parameters": parameters if isinstance(parameters, dict) else {"type": "object"},
    }


def _description(agent: Agent, agent_name: str) -> str:
    """The first paragraph of the agent's docstring, as the other doors describe it."""
    first = (getattr(agent, "__doc__", None) or "").strip().split("\n\n", 1)[0]
    return " ".join(first.split()) or f"The turnwire agent {agent_name}."


def _merged(base: dict[str, Any], own: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in own.items():
        held = out.get(key)
        out[key] = _merged(held, value) if isinstance(held, dict) and isinstance(value, dict) else value
    return out


async def _serve(request: Request, agent_name: str | None) -> Response:
    app = current(request)
    name = agent_name if agent_name is not None else app.default_agent
    return JSONResponse(capabilities(app.agent(name), name), headers=_HEADERS)


def add_capabilities_routes(router: APIRouter) -> None:
    async def default_agent(request: Request) -> Response:
        return await _serve(request, None)

    async def named_agent(name: str, request: Request) -> Response:
        return await _serve(request, name)

    responses: dict[int | str, dict[str, Any]] = {
        200: {"description": "AG-UI AgentCapabilities (only what is known is declared)"},
        404: {"description": "Unknown agent"},
    }
    for path, handler in (
        ("/agui/capabilities", default_agent),
        ("/agents/{name}/agui/capabilities", named_agent),
    ):
        router.add_api_route(
            path, handler, methods=["GET"], summary="The agent's AG-UI capabilities", responses=responses
        )
