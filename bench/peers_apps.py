"""The apps of the peers workload (``peers.py``): one pydantic-ai agent, served by pydantic-ai's own
adapters on Starlette and by ``turnwire serve``.

The agent runs on a ``FunctionModel`` that streams ``PEERS_DELTAS`` text deltas (default 100), so
every server does the same agent work and differs only in what it does around it. Served as:

    uvicorn peers_apps:vercel_app   # POST /chat: pydantic-ai's VercelAIAdapter (AI SDK 7 stream)
    uvicorn peers_apps:agui_app     # POST /agui: pydantic-ai's AGUIAdapter
    turnwire serve --agent peer=peers_apps:agent --default-agent peer   # /chat and /agui, recorded
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models.function import AgentInfo, DeltaToolCalls, FunctionModel
from pydantic_ai.ui.ag_ui import AGUIAdapter
from pydantic_ai.ui.vercel_ai import VercelAIAdapter
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

DELTAS = int(os.environ.get("PEERS_DELTAS", "100"))


async def _words(messages: list[ModelMessage], info: AgentInfo) -> AsyncIterator[str | DeltaToolCalls]:
    for i in range(DELTAS):
        yield f"word{i} "


agent = Agent(FunctionModel(stream_function=_words), name="peer")


async def _vercel(request: Request) -> Response:
    return await VercelAIAdapter.dispatch_request(request, agent=agent, sdk_version=7)


async def _agui(request: Request) -> Response:
    return await AGUIAdapter.dispatch_request(request, agent=agent)


vercel_app = Starlette(routes=[Route("/chat", _vercel, methods=["POST"])])
agui_app = Starlette(routes=[Route("/agui", _agui, methods=["POST"])])
