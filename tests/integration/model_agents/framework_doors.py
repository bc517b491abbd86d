"""turnwire servers whose agents are framework adapters on the fake OpenAI server: an OpenAI Agents
SDK agent (``sdk``, Responses API) and a LangGraph graph (``graph``, ``ChatOpenAI``). The warm and
the cold server (no session pool) each have their own adapters (each server runs its own event loop,
which an HTTP client belongs to) but share one LangGraph checkpointer, as several workers share a
persistent one."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
from langgraph.checkpoint.memory import InMemorySaver

from langgraph_graphs import weather_graph
from openai_agents_agents import weather_agent
from openai_fake import FakeOpenAI
from services import serve_app
from turnwire.agents import langgraph_agent, openai_agents_agent
from turnwire.server import Settings, create_app

WEATHER_CALL = "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F"
DELETE_CALL = "call_D3l3t3N0t3sTxt0000000001"
ADAPTERS = ("sdk", "graph")


@dataclass
class Servers:
    warm: str
    cold: str


def framework_agents(fake: FakeOpenAI, checkpointer: Any) -> dict[str, Any]:
    client = openai.AsyncOpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
    return {
        "sdk": openai_agents_agent(weather_agent(client)),
        "graph": langgraph_agent(weather_graph(fake.base_url), checkpointer=checkpointer),
    }


@contextlib.contextmanager
def run_servers(fake: FakeOpenAI, home: Path, default: str) -> Iterator[Servers]:
    checkpointer = InMemorySaver()

    def app(pool_max: int) -> Any:
        agents = framework_agents(fake, checkpointer)
        settings = Settings(
            db_url=f"sqlite:///{home / f'store-{uuid.uuid4().hex[:8]}.db'}",
            approval_secret_file=str(home / "secret"),
            session_pool_max=pool_max,
            keepalive_seconds=0,
        )
        return create_app(agents, default_agent=default, settings=settings)

    with serve_app(app(64)) as warm, serve_app(app(0)) as cold:
        yield Servers(warm, cold)
