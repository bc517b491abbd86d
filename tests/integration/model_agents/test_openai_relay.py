"""``openai_agent`` against turnwire's own OpenAI-compatible door: one server serves the demo agent on
``/v1/chat/completions``, a second serves an ``openai_agent`` whose model is that demo. Real SDK, real
HTTP both ways; the relayed turn carries the demo's reasoning, text and usage."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import openai
import pytest
from approvals_wire import sse_data

from services import serve_app
from turnwire.agents import openai_agent
from turnwire.server import Settings, create_app


@pytest.fixture(scope="module")
def relay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("relay")

    def settings(name: str) -> Settings:
        return Settings(
            db_url=f"sqlite:///{home / name}.db",
            approval_secret_file=str(home / "secret"),
            keepalive_seconds=0,
        )

    with serve_app(create_app(settings=settings("upstream"))) as upstream:
        client = openai.AsyncOpenAI(base_url=upstream + "/v1", api_key="unused", max_retries=0)
        agent = openai_agent("demo", client=client)
        with serve_app(
            create_app({"relay": agent}, default_agent="relay", settings=settings("relay"))
        ) as url:
            yield url


def test_a_relayed_turn_streams_the_upstream_agents_reasoning_text_and_usage(relay: str) -> None:
    body = {"session_id": "relay-1", "data": {"inputs": {"messages": [{"role": "user", "content": "hello"}]}}}
    response = httpx.post(relay + "/invoke", json=body, headers={"accept": "text/event-stream"}, timeout=20)
    frames = sse_data(response.content)
    kinds = [f["type"] for f in frames]
    assert kinds[:3] == ["thought_start", "thought_delta", "thought_end"]
    thought = "".join(f["data"]["delta"] for f in frames if f["type"] == "thought_delta")
    text = "".join(f["data"]["delta"] for f in frames if f["type"] == "message_delta")
    assert (thought, text) == ("The user said: hello.", "You said: hello")
    usage = next(f["data"] for f in frames if f["type"] == "usage")
    assert usage == {"input": 1, "output": 3, "total": 4}  # the demo counts words
    assert frames[-1]["type"] == "done" and frames[-1]["data"]["stopReason"] == "end_turn"
