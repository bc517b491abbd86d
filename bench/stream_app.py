"""Workload 4 variant: turnwire's routes in a bare FastAPI app with no store, so nothing is recorded.

``turnwire serve`` stores every streamed turn on its session's task (a write per message start and
end); this app serves the same routes from ``create_router`` without a store, which isolates the
cost of streaming itself. Agents: the demo and the bench agent ``fast`` (``count_agent.fast_count``).

    uvicorn stream_app:app --app-dir bench --host 127.0.0.1 --port 8002
"""

from __future__ import annotations

from fastapi import FastAPI

from count_agent import fast_count
from turnwire.agents import builtin_agents
from turnwire.server import create_router
from turnwire.server.settings import Settings

app = FastAPI()
app.include_router(
    create_router({**builtin_agents(), "fast": fast_count}, settings=Settings.from_env(keepalive_seconds=0.0))
)
