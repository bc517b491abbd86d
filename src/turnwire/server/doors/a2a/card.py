"""The agent card (``AgentCard``, protobuf JSON): what an A2A client reads before it calls.

URLs are absolute, built from the request (scheme, host and root path, so a proxy that sets the
forwarded headers uvicorn trusts gets its own). Skills are the agent's own A2A skills
(``agent.skills``: a remote agent's, through ``a2a_agent``), else its tools (``agent.tools``, as
``openai_chat`` agents have them), else one skill naming the agent. Capabilities say only
what the door does: streaming yes, push notifications and the extended card no. With API keys
configured the card names the bearer scheme and requires it.
"""

from __future__ import annotations

from typing import Any, Final

from starlette.requests import Request

from turnwire.runtime import Agent
from turnwire.server.context import AppContext

PROTOCOL_VERSION: Final = "1.0"
JSONRPC: Final = "JSONRPC"
HTTP_JSON: Final = "HTTP+JSON"
BEARER: Final = "bearer"
INPUT_MODES: Final = ["text/plain", "application/json", "image/*", "application/octet-stream"]
OUTPUT_MODES: Final = ["text/plain", "application/json"]


def interface_url(request: Request, app: AppContext, agent_name: str) -> str:
    base = str(request.base_url).rstrip("/")
    return f"{base}/a2a" if agent_name == app.default_agent else f"{base}/a2a/{agent_name}"


def rest_url(request: Request, agent_name: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/a2a/{agent_name}/http"


def agent_card(request: Request, app: AppContext, agent_name: str) -> dict[str, Any]:
    agent = app.agent(agent_name)
    url = interface_url(request, app, agent_name)
    card: dict[str, Any] = {
        "name": agent_name,
        "description": _description(agent, agent_name),
        "version": _version(),
        "supportedInterfaces": [
            {"url": url, "protocolBinding": JSONRPC, "protocolVersion": PROTOCOL_VERSION},
            {
                "url": rest_url(request, agent_name),
                "protocolBinding": HTTP_JSON,
                "protocolVersion": PROTOCOL_VERSION,
            },
        ],
        "provider": {"organization": "turnwire", "url": str(request.base_url).rstrip("/")},
        "capabilities": {
            "streaming": True,
            "pushNotifications": bool(app.settings.a2a_push_allow),
            "extendedAgentCard": False,
        },
        "defaultInputModes": INPUT_MODES,
        "defaultOutputModes": OUTPUT_MODES,
        "skills": skills(agent, agent_name),
    }
    if app.settings.api_keys:
        card["securitySchemes"] = {
            BEARER: {"httpAuthSecurityScheme": {"scheme": "Bearer", "description": "A turnwire API key"}}
        }
        card["securityRequirements"] = [{"schemes": {BEARER: {"list": []}}}]
    return card


def skills(agent: Agent, agent_name: str) -> list[dict[str, Any]]:
    declared = getattr(agent, "skills", None)  # an agent that has A2A skills (a remote A2A agent)
    if isinstance(declared, list) and declared and all(isinstance(s, dict) and s.get("id") for s in declared):
        return [dict(s) for s in declared]
    tools = getattr(agent, "tools", None)
    values = list(tools.values()) if isinstance(tools, dict) else list(tools or ())
    out = []
    for tool in values:
        name = getattr(tool, "name", None)
        if not isinstance(name, str) or not name:
            continue
        description = getattr(tool, "description", "") or name
        out.append({"id": name, "name": name, "description": description, "tags": ["tool"]})
    if not out:
        out.append(
            {
                "id": agent_name,
                "name": agent_name,
                "description": _description(agent, agent_name),
                "tags": ["chat"],
            }
        )
    return out


def _description(agent: Agent, agent_name: str) -> str:
    doc = getattr(agent, "__doc__", None) or ""
    first = doc.strip().split("\n\n", 1)[0].strip()
    return " ".join(first.split()) if first else f"The turnwire agent {agent_name}."


def _version() -> str:
    from turnwire import __version__

    return __version__
