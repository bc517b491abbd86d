from agentex_server import server

__all__ = ["server"]
