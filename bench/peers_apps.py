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


# --- A2A: the same words from an executor behind a2a-sdk's own server classes ----------------
# (its JSON-RPC routes, ``DefaultRequestHandlerV2`` and ``InMemoryTaskStore``), beside turnwire's
# A2A door serving ``agent`` above. Like turnwire's door, it streams the task, a working status,
# one artifact chunk per delta (``append`` after the first, ``lastChunk`` on the last), completed.
from a2a.helpers import new_task  # noqa: E402
from a2a.server.agent_execution import AgentExecutor, RequestContext  # noqa: E402
from a2a.server.events import EventQueue  # noqa: E402
from a2a.server.request_handlers import DefaultRequestHandlerV2  # noqa: E402
from a2a.server.routes import create_jsonrpc_routes  # noqa: E402
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater  # noqa: E402
from a2a.types import AgentCapabilities, AgentCard, AgentInterface, Part, TaskState  # noqa: E402


class WordsExecutor(AgentExecutor):
    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        assert context.task_id is not None and context.context_id is not None
        updater = TaskUpdater(event_queue, context.task_id, context.context_id)
        if context.current_task is None:
            history = [context.message] if context.message is not None else []
            await event_queue.enqueue_event(
                new_task(context.task_id, context.context_id, TaskState.TASK_STATE_SUBMITTED, history=history)
            )
        await updater.start_work()
        for i in range(DELTAS):
            await updater.add_artifact(
                [Part(text=f"word{i} ")],
                artifact_id="text-0",
                name="answer",
                append=i > 0,
                last_chunk=i == DELTAS - 1,
            )
        await updater.complete()

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        raise NotImplementedError


_card = AgentCard(
    name="peer",
    description="The peers benchmark's words",
    version="1.0",
    supported_interfaces=[
        AgentInterface(url="http://127.0.0.1/a2a", protocol_binding="JSONRPC", protocol_version="1.0")
    ],
    capabilities=AgentCapabilities(streaming=True),
    default_input_modes=["text"],
    default_output_modes=["text"],
)
_handler = DefaultRequestHandlerV2(WordsExecutor(), InMemoryTaskStore(), _card)
a2a_app = Starlette(routes=create_jsonrpc_routes(_handler, "/a2a"))
