"""A chat page that reloads shows the very conversation the user saw, checked on the real client
(ai 7.0.173 ``AbstractChat`` + ``DefaultChatTransport``) against a live server with a store."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from node_runner import run_node_tests
from services import serve_app
from turnwire.agents import demo_agent
from turnwire.model import (
    CustomEvent,
    DataEvent,
    Event,
    FileEvent,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app


async def parts(ctx: TurnContext) -> AsyncIterator[Event]:
    """A turn with a part of every kind a stream carries (sources among them), a transient notice
    and renders."""
    n = sum(1 for m in ctx.messages if m.role == "user")
    yield ThoughtStart(id=f"r{n}")
    yield ThoughtDelta(id=f"r{n}", delta="Looking it up.")
    yield ThoughtEnd(id=f"r{n}")
    yield SourceUrl(id=f"src-{n}", url="https://example.com/oslo", title="Oslo")
    yield DataEvent(name="progress", data={"step": 1}, transient=True)
    yield ToolCall(id=f"call-{n}", name="lookup", input={"q": ctx.last_user_text()}, render={"kind": "card"})
    yield ToolResult(
        id=f"call-{n}", name="lookup", output="found", data={"hits": n}, render={"kind": "table"}
    )
    yield DataEvent(name="weather", data={"city": "Oslo", "temperature_c": 21})
    yield DataEvent(data=None)
    yield FileEvent(url="https://example.com/chart.png", media_type="image/png")
    yield MessageEvent(text=f"Found {n}.")
    yield SourceDocument(id=f"doc-{n}", media_type="application/pdf", title="Oslo facts")
    yield Usage(input=3, output=4, total=7)


async def customs(ctx: TurnContext) -> AsyncIterator[Event]:
    """A turn with custom events before its first content, beside a streamed text (around a
    source) and after its last text."""
    n = sum(1 for m in ctx.messages if m.role == "user")
    yield CustomEvent("acme.plan", {"n": n})
    yield ToolCall(id=f"call-{n}", name="lookup", input={"q": ctx.last_user_text()})
    yield ToolResult(id=f"call-{n}", name="lookup", output="found")
    yield MessageStart(id=f"m{n}")
    yield MessageDelta(id=f"m{n}", delta="Found ")
    yield CustomEvent("acme.mark")
    yield SourceUrl(id=f"src-{n}", url="https://example.com/oslo")
    yield MessageDelta(id=f"m{n}", delta="it.")
    yield MessageEnd(id=f"m{n}")
    yield MessageEvent(text=f"That is {n}.")
    yield CustomEvent("acme.done", [n, "x", None])


def _settings(tmp_path: Path) -> Settings:
    return Settings(
        db_url=f"sqlite:///{tmp_path / 'reload.db'}",
        approval_secret_file=str(tmp_path / "secret"),
        keepalive_seconds=0,
    )


@pytest.mark.node
def test_a_reloaded_chat_equals_what_the_client_assembled(tmp_path: Path) -> None:
    app = create_app({"demo": demo_agent, "parts": parts}, default_agent="demo", settings=_settings(tmp_path))
    with serve_app(app) as url:
        passed = run_node_tests("reload.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 4


@pytest.mark.node
def test_an_ai7_chat_with_custom_parts_equals_its_reload(tmp_path: Path) -> None:
    app = create_app({"customs": customs}, default_agent="customs", settings=_settings(tmp_path))
    with serve_app(app) as url:
        passed = run_node_tests("reload_custom.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 4
