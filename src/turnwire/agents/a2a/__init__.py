"""Remote A2A agents as turnwire agents: ``a2a_agent(url)`` (``agent``), and the mapping of a
remote task's stream responses to canonical events (``events``). See docs/a2a.md."""

from turnwire.agents.a2a.agent import A2AAgent, a2a_agent

__all__ = ["A2AAgent", "a2a_agent"]
