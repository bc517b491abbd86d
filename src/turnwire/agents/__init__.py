"""Built-in agents and the loader that finds agents by name (``turnwire serve --agent``)."""

from turnwire.agents.demo import demo_agent
from turnwire.agents.loader import AgentLoadError, builtin_agents, load_agent

__all__ = ["AgentLoadError", "builtin_agents", "demo_agent", "load_agent"]
