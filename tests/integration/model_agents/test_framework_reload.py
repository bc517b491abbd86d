"""Property: for random sequences of recorded turns on one ``/chat`` conversation, what a client
assembles from each adapter's streams equals the conversation read back in the Vercel format."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from approvals_flows import UseChat
from framework_doors import ADAPTERS, Servers, run_servers
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openai_fake import FakeOpenAI

PROMPTS = ["hello", "what is 17 times 3", "weather in Paris"]


@pytest.fixture(scope="module")
def every_adapter(fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Servers]]:
    import contextlib

    with contextlib.ExitStack() as stack:
        yield {
            name: stack.enter_context(run_servers(fake, tmp_path_factory.mktemp(f"reload-{name}"), name))
            for name in ADAPTERS
        }


def assembled(chunks: list[Any]) -> dict[str, Any]:
    """The assistant UIMessage as the AI SDK's client builds it from a stream's chunks."""
    parts: list[dict[str, Any]] = []
    open_parts: dict[str, dict[str, Any]] = {}
    tools: dict[str, dict[str, Any]] = {}
    for chunk in chunks:
        kind = chunk["type"]
        if kind == "start-step":
            parts.append({"type": "step-start"})
        elif kind in ("text-start", "reasoning-start"):
            open_parts[chunk["id"]] = {"type": kind[:-6], "text": ""}
            parts.append(open_parts[chunk["id"]])
        elif kind in ("text-delta", "reasoning-delta"):
            open_parts[chunk["id"]]["text"] += chunk["delta"]
        elif kind == "tool-input-available":
            part = tools.setdefault(
                chunk["toolCallId"], {"type": "tool-" + chunk["toolName"], "toolCallId": chunk["toolCallId"]}
            )
            if part not in parts:
                parts.append(part)
            part.update(state="input-available", input=chunk["input"])
        elif kind == "tool-output-available":
            tools[chunk["toolCallId"]].update(state="output-available", output=chunk["output"])
        elif kind.startswith("data-") and not chunk.get("transient"):
            parts.append({"type": kind, "data": chunk["data"]})
    return {"role": "assistant", "parts": parts}


def comparable(message: dict[str, Any]) -> dict[str, Any]:
    keep = ("type", "text", "toolCallId", "state", "input", "output", "data")
    return {
        "role": message["role"],
        "parts": [{k: p[k] for k in keep if k in p} for p in message["parts"]],
    }


@pytest.mark.parametrize("adapter", ADAPTERS)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prompts=st.lists(st.sampled_from(PROMPTS), min_size=1, max_size=3))
def test_what_the_client_assembled_is_the_history_read_back(
    every_adapter: dict[str, Servers], adapter: str, prompts: list[str]
) -> None:
    url = every_adapter[adapter].warm
    session = f"reload-{adapter}-{uuid.uuid4().hex[:8]}"
    flow = UseChat()
    history: list[Any] = []
    for n, prompt in enumerate(prompts):
        user = {"id": f"u{n}", "role": "user", "parts": [{"type": "text", "text": prompt}]}
        status, chunks = flow.post(url, session, [*history, user])
        assert status == 200, chunks
        assistant = assembled([c for c in chunks if c != "[DONE]"])
        assistant["id"] = next(c["messageId"] for c in chunks if c != "[DONE]" and c["type"] == "start")
        history += [user, assistant]
    said = [p for m in history if m["role"] == "assistant" for p in m["parts"] if p["type"] != "step-start"]
    assert len(said) >= len(prompts)  # every turn streamed something to compare
    stored = httpx.get(f"{url}/tasks/{session}/messages", params={"format": "vercel"}, timeout=20).json()
    assert [comparable(m) for m in stored["messages"]] == [comparable(m) for m in history]
