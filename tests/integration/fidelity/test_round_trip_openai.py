"""Round trip through the OpenAI-compatible door: the assistant message the ``openai`` SDK handed
its caller for each turn (``create`` non-streaming, or the SDK's stream accumulator through
``chat.completions.stream``) says what the conversation read back with ``?format=openai`` says.

The two are different shapes of the same turn, by the door's documented design (docs/openai.md):
a completion is one assistant message per turn, its texts joined by a blank line, its reasoning
likewise, and the tools the agent ran itself under ``executed_tool_calls`` with their outputs;
the history gives the turn as Chat Completions messages (assistant messages with ``tool_calls``,
a ``tool`` message per result). ``_as_completion`` folds each turn of the history into the
completion's shape. What Chat Completions cannot carry is left out on both sides:

- ``is_error`` of an executed call: a ``tool`` message has no error flag, so the history cannot
  say it (the completion's extension can);
- data parts and files: neither the answer nor the history has a place for them.
"""

from __future__ import annotations

import uuid
from typing import Any

import orjson
import pytest
from fidelity_wire import stored
from generated_turns import turns as _turns
from hypothesis import HealthCheck, given, settings
from openai import OpenAI

SEPARATOR = "\n\n"


def _answer(client: OpenAI, session: str, text: str, streaming: bool) -> dict[str, Any]:
    """The turn's assistant message as the SDK returns it (extension fields kept)."""
    kwargs: dict[str, Any] = {
        "model": "scripted",
        "messages": [{"role": "user", "content": text}],
        "extra_headers": {"x-ag-session-id": session, "x-ag-history": "stored"},
    }
    if streaming:
        with client.chat.completions.stream(**kwargs) as stream:
            for _ in stream:
                pass
            done = stream.get_final_completion()
    else:
        done = client.chat.completions.create(**kwargs)
    assert done.choices[0].finish_reason == "stop", done
    return done.choices[0].message.model_dump(exclude_none=True)


def _said(message: dict[str, Any]) -> dict[str, Any]:
    calls = [
        (c["id"], c["function"]["name"], orjson.loads(c["function"]["arguments"]), c["output"])
        for c in message.get("executed_tool_calls") or ()
    ]
    return {
        "content": message.get("content") or None,
        "reasoning_content": message.get("reasoning_content") or None,
        "executed": calls,
        "tool_calls": message.get("tool_calls") or [],
    }


def _as_completion(history: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """The history as (user text, what the turn's completion says) pairs."""
    out: list[tuple[str, Any]] = []
    texts: list[str] = []
    thoughts: list[str] = []
    calls: dict[str, tuple[str, Any]] = {}
    executed: list[tuple[str, str, Any, str]] = []

    def close() -> None:
        if out:
            out[-1] = (
                out[-1][0],
                {
                    "content": SEPARATOR.join(texts) or None,
                    "reasoning_content": SEPARATOR.join(thoughts) or None,
                    "executed": list(executed),
                    "tool_calls": [],
                },
            )
        texts.clear(), thoughts.clear(), calls.clear(), executed.clear()

    for message in history:
        if message["role"] == "user":
            close()
            out.append((message["content"], None))
        elif message["role"] == "assistant":
            if message.get("reasoning_content"):
                thoughts.append(message["reasoning_content"])
            if message.get("content"):
                texts.append(message["content"])
            for call in message.get("tool_calls") or ():
                function = call["function"]
                calls[call["id"]] = (function["name"], orjson.loads(function["arguments"]))
        elif message["role"] == "tool":
            name, arguments = calls[message["tool_call_id"]]
            executed.append((message["tool_call_id"], name, arguments, message["content"]))
    close()
    return out


@pytest.mark.parametrize("streaming", [False, True], ids=["batch", "stream"])
@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=_turns)
def test_openai_answers_read_back_as_the_client_got_them(
    server: str, streaming: bool, turns: list[list[Any]]
) -> None:
    client = OpenAI(base_url=f"{server}/v1", api_key="unused", max_retries=0)
    session = f"rt-openai-{uuid.uuid4().hex}"
    seen: list[tuple[str, Any]] = []
    for steps in turns:
        text = orjson.dumps(steps).decode()
        seen.append((text, _said(_answer(client, session, text, streaming))))
    assert _as_completion(stored(server, session, "openai")) == seen
