"""Starting the server from the command line (``turnwire serve``)."""

from __future__ import annotations

from collections.abc import Sequence

from turnwire.agents import AgentLoadError, builtin_agents, load_agent
from turnwire.runtime import Agent
from turnwire.server.settings import Settings


def parse_agent_specs(specs: Sequence[str]) -> dict[str, Agent]:
    """The built-in agents plus one per ``NAME=module:attr`` spec (a later spec wins a name).

    Raises ``AgentLoadError`` naming the spec when it is malformed or its agent cannot be loaded.
    """
    agents = builtin_agents()
    for spec in specs:
        name, eq, target = spec.partition("=")
        name = name.strip()
        if not eq or not name or not target.strip():
            raise AgentLoadError(f"--agent {spec!r}: expected NAME=module:attr, e.g. chat=my_app.agents:chat")
        agents[name] = load_agent(target)
    return agents


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    agent_specs: Sequence[str] = (),
    default_agent: str = "demo",
    db_url: str | None = None,
    keepalive: float | None = None,
) -> None:
    """Run the turnwire app under uvicorn until interrupted (blocking).

    Settings come from ``TURNWIRE_*`` variables, then the given ``db_url``/``keepalive``. Raises
    ``AgentLoadError`` for a bad agent spec or a default agent that is not among the agents.
    """
    import uvicorn

    from turnwire.server.app import create_app

    agents = parse_agent_specs(agent_specs)
    if default_agent not in agents:
        known = ", ".join(sorted(agents))
        raise AgentLoadError(f"--default-agent {default_agent!r} is not an agent; known agents: {known}")
    settings = Settings.from_env(db_url=db_url, keepalive_seconds=keepalive)
    app = create_app(agents, default_agent=default_agent, settings=settings)
    uvicorn.run(app, host=host, port=port, log_level="info")
