"""Per-event overhead of the model adapters, against the raw SDK iteration as the floor.

- OpenAI-compatible: a long recorded Chat Completions stream (content deltas, a reasoning prelude,
  usage) served from memory through the real ``openai`` client (``httpx2.MockTransport``: no socket).
  Floor: ``async for chunk in stream`` on the SDK's stream. Adapter: ``openai_agent`` yielding
  canonical events from the same bytes.
- pydantic-ai: a ``FunctionModel`` streaming the same number of text pieces. Floor: iterating
  ``agent.run_stream_events``. Adapter: ``pydantic_ai_agent`` over the same agent.

Both adapters are iterated directly (no runner, no server), so the difference is what the adapter
adds per event. ``python bench/experiments/bench_agents.py [N]`` (N deltas, default 20000),
round-robin best of 3.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx2
import openai
import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: timing

from timing import machine
from turnwire.agents import openai_agent, pydantic_ai_agent
from turnwire.model import Message, TextBlock
from turnwire.runtime import TurnContext


def recorded_stream(n: int) -> bytes:
    """``n`` content chunks after 50 reasoning chunks, a finish chunk, a usage chunk and [DONE]."""
    head = {"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1764578400, "model": "m"}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
        body = {**head, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}
        return b"data: " + orjson.dumps(body) + b"\n\n"

    parts = [chunk({"role": "assistant", "content": ""})]
    parts += [chunk({"reasoning_content": "hmm "}) for _ in range(50)]
    parts += [chunk({"content": f"word{i} "}) for i in range(n)]
    parts.append(chunk({}, "stop"))
    usage = {
        **head,
        "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": n, "total_tokens": n + 10},
    }
    parts.append(b"data: " + orjson.dumps(usage) + b"\n\n")
    parts.append(b"data: [DONE]\n\n")
    return b"".join(parts)


def openai_client(raw: bytes) -> openai.AsyncOpenAI:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, content=raw, headers={"content-type": "text/event-stream"})

    transport = httpx2.MockTransport(handler)
    return openai.AsyncOpenAI(
        api_key="sk-bench",
        base_url="http://model.invalid/v1",
        http_client=httpx2.AsyncClient(transport=transport),
    )


CTX = TurnContext(messages=[Message(role="user", content=[TextBlock("go")])])


async def openai_floor(client: openai.AsyncOpenAI) -> int:
    stream = await client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "go"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    count = 0
    async for _chunk in stream:
        count += 1
    return count


async def openai_adapter(client: openai.AsyncOpenAI) -> int:
    count = 0
    async for _event in openai_agent("m", client=client)(CTX):
        count += 1
    return count


def pydantic_agent(n: int) -> Any:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import AgentInfo, FunctionModel

    async def model(messages: list[Any], info: AgentInfo) -> AsyncIterator[str]:
        for i in range(n):
            yield f"word{i} "

    return Agent(FunctionModel(stream_function=model))


async def pydantic_floor(agent: Any) -> int:
    count = 0
    async with agent.run_stream_events("go") as events:
        async for _event in events:
            count += 1
    return count


async def pydantic_adapter(agent: Any) -> int:
    count = 0
    async for _event in pydantic_ai_agent(agent)(CTX):
        count += 1
    return count


async def best(fns: dict[str, Callable[[], Awaitable[int]]], repeat: int = 3) -> dict[str, tuple[float, int]]:
    out = {name: (float("inf"), 0) for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            t0 = time.perf_counter()
            count = await fn()
            elapsed = time.perf_counter() - t0
            if elapsed < out[name][0]:
                out[name] = (elapsed, count)
    return out


async def main(n: int) -> None:
    client = openai_client(recorded_stream(n))
    agent = pydantic_agent(n)
    results = await best(
        {
            "openai: SDK iteration (floor)": lambda: openai_floor(client),
            "openai: openai_agent": lambda: openai_adapter(client),
            "pydantic-ai: run_stream_events (floor)": lambda: pydantic_floor(agent),
            "pydantic-ai: pydantic_ai_agent": lambda: pydantic_adapter(agent),
        }
    )
    print(f"{machine()}; {n} deltas, best of 3\n")
    print("| path | items | seconds | items/s | µs per item | × floor |")
    print("|---|---|---|---|---|---|")
    floors = {
        "openai": results["openai: SDK iteration (floor)"],
        "pydantic-ai": results["pydantic-ai: run_stream_events (floor)"],
    }
    for name, (seconds, count) in results.items():
        floor_seconds = floors[name.split(":")[0]][0]
        print(
            f"| {name} | {count} | {seconds:.3f} | {count / seconds:,.0f} | {seconds / n * 1e6:.2f} "
            f"| {seconds / floor_seconds:.2f} |"
        )
    await client.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000))
