"""One turnwire app serving the model-backed agents, on loopback with a SQLite store."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from approvals_flows import Reply
from approvals_wire import agenta_replay, ui_assistant

from model_tools import model_agent
from openai_fake import FakeOpenAI
from pydantic_models import scripted_agent
from services import serve_app
from turnwire.agents import pydantic_ai_agent
from turnwire.server import Settings, create_app


@dataclass
class Doors:
    url: str
    home: Path


@contextlib.contextmanager
def run_doors(fake: FakeOpenAI, home: Path, *, pool_max: int = 64, default: str = "model") -> Iterator[Doors]:
    """Agents ``model`` (OpenAI-compatible, on ``fake``) and ``pydantic`` (a pydantic-ai agent on a
    scripted ``FunctionModel``); ``default`` is the one behind ``/invoke`` and ``/chat``."""
    agents = {"model": model_agent(fake.base_url), "pydantic": pydantic_ai_agent(scripted_agent())}
    settings = Settings(
        db_url=f"sqlite:///{home / f'store-{uuid.uuid4().hex[:8]}.db'}",
        approval_secret_file=str(home / "secret"),
        session_pool_max=pool_max,
        keepalive_seconds=0,
    )
    with serve_app(create_app(agents, default_agent=default, settings=settings)) as url:
        yield Doors(url, home)


def decide(flow: Any, url: str, session: str, paused: Reply, answers: dict[str, bool]) -> Reply:
    """The client's answer to a paused turn, with the results of the calls that already ran in it
    (the shared flows replay only calls and decisions, which is all the demo needs)."""
    if flow.name == "agenta-batch":  # its outputs already carry every result
        return flow.decide(url, session, paused, answers)
    if flow.name == "agenta-sse":
        message = agenta_replay(paused.body, answers)
        for frame in paused.body:
            if frame["type"] == "tool_result":
                result = {
                    "type": "tool_result",
                    "toolCallId": frame["data"]["id"],
                    "output": frame["data"]["output"],
                }
                message["content"].append(result)
        return flow.send(url, session, [*paused.history, message])
    message = ui_assistant(paused.body, answers)
    parts = {p.get("toolCallId"): p for p in message["parts"]}
    for chunk in paused.body[:-1]:
        if chunk["type"] == "tool-output-available":
            parts[chunk["toolCallId"]].update(state="output-available", output=chunk["output"])
    return flow.send(url, session, [*paused.history, message])
