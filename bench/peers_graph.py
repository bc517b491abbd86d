"""Row (4) of the peers workload (``peers.py``): one LangGraph graph, run bare and behind turnwire.

The graph is one node calling a LangChain chat model that streams ``PEERS_DELTAS`` text chunks
(``word0 ``, ``word1 ``...; default 100, the words of the other rows), with LangGraph's in-memory
checkpointer, so every side does the same framework work and differs only in what it does around
it. Served as:

    uvicorn peers_graph:graph_app   # POST /graph: the graph on bare Starlette, each chunk one SSE frame
    turnwire serve --agent peer=peers_graph:agent --default-agent peer   # /chat, recorded (langgraph_agent)

and run in process, without HTTP (``in_process``): the framework's own CPU per turn.

Both servers stream the graph with the adapter's stream modes (``messages``, ``updates``,
``custom``) on a fresh thread per turn: the bare app does nothing but put each message chunk's
text in an SSE frame, the least any server of this graph does.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import orjson
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, MessagesState, StateGraph
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import StreamingResponse
from starlette.routing import Route

from turnwire.agents.langgraph import langgraph_agent
from turnwire.agents.langgraph.agent import STREAM_MODES

DELTAS = int(os.environ.get("PEERS_DELTAS", "100"))


class WordsModel(BaseChatModel):
    """A chat model streaming ``word0 `` … ``word{DELTAS-1} ``, one chunk each (no network)."""

    @property
    def _llm_type(self) -> str:
        return "peers-words"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        text = "".join(f"word{i} " for i in range(DELTAS))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for i in range(DELTAS):
            yield ChatGenerationChunk(message=AIMessageChunk(content=f"word{i} "))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for i in range(DELTAS):
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=f"word{i} "))
            if run_manager is not None:  # what a real provider does: LangGraph's ``messages`` mode hears it
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk


_model = WordsModel()


async def _answer(state: MessagesState) -> dict[str, Any]:
    return {"messages": [await _model.ainvoke(state["messages"])]}


def build_graph() -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("answer", _answer)
    builder.add_edge(START, "answer")
    return builder.compile(checkpointer=InMemorySaver())


graph = build_graph()
agent = langgraph_agent(graph)  # the graph's own checkpointer is kept


async def stream_turn(text: str, thread: str) -> AsyncIterator[str]:
    """One turn of the graph, bare: the text of each message chunk it streams."""
    config = {"configurable": {"thread_id": thread}}
    stream = graph.astream({"messages": [HumanMessage(text)]}, config, stream_mode=list(STREAM_MODES))
    async for mode, chunk in stream:
        if mode == "messages":
            message = chunk[0]
            if isinstance(message, AIMessageChunk) and isinstance(message.content, str) and message.content:
                yield message.content


async def _graph(request: Request) -> StreamingResponse:
    body = orjson.loads(await request.body())
    text = body["messages"][-1]["parts"][0]["text"]

    async def frames() -> AsyncIterator[bytes]:
        async for piece in stream_turn(text, body["id"]):
            yield b"data: " + orjson.dumps({"text": piece}) + b"\n\n"
        yield b"data: [DONE]\n\n"

    return StreamingResponse(frames(), media_type="text/event-stream")


graph_app = Starlette(routes=[Route("/graph", _graph, methods=["POST"])])


def in_process(level: int, turns: int) -> tuple[float, float]:
    """The graph alone, ``turns`` turns at ``level`` concurrent on a uvloop event loop of this
    process, no HTTP: (CPU ms per turn, turns per second). Every turn must stream all its words."""

    async def run() -> tuple[float, float]:
        for _ in range(min(5, turns)):  # warm-up, as the servers get
            [p async for p in stream_turn("hello", uuid.uuid4().hex)]
        cpu0 = time.process_time()
        queue = iter(range(turns))

        async def worker() -> None:
            for _ in queue:
                pieces = [p async for p in stream_turn("hello", uuid.uuid4().hex)]
                assert len(pieces) == DELTAS and pieces[-1] == f"word{DELTAS - 1} ", pieces[-3:]

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(level)))
        return time.process_time() - cpu0, time.perf_counter() - start

    import uvloop  # the servers' loop (uvicorn[standard])

    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        cpu, wall = runner.run(run())
    return cpu / turns * 1000, turns / wall
