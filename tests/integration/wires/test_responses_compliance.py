"""The seven Open Responses compliance cases (basic response, streaming response, system prompt,
tool calling, tool calling streaming, image input, multi-turn), re-derived from that public
specification as checks on raw HTTP and through the ``openai`` SDK, against a live server whose
agent shows what it received (so a check on its answer checks what the door passed it)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from openai import OpenAI

from services import serve_app
from turnwire.model import (
    Done,
    Event,
    ImageBlock,
    InteractionKind,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageStart,
    TextBlock,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

CALL_ID = "call_weather_1"
IMAGE = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/"
    "PchI7wAAAABJRU5ErkJggg=="
)


def _texts(ctx: TurnContext, roles: tuple[str, ...]) -> list[str]:
    return [b.text for m in ctx.messages if m.role in roles for b in m.content if isinstance(b, TextBlock)]


async def mirror(ctx: TurnContext) -> AsyncIterator[Event]:
    """Says what it got: the system prompt, an image, earlier user turns; calls the client's
    ``get_weather`` when offered, and reports its output once it is answered."""
    answer: str | None = None
    for message in ctx.messages:
        for block in message.content:
            if isinstance(block, ToolResultBlock) and block.id == CALL_ID:
                answer = f"The weather tool said: {block.output}"
    offered = [t.get("name") for t in (ctx.parameters.get("responses") or {}).get("tools") or []]
    if answer is None and "get_weather" in offered:
        payload = {"toolCallId": CALL_ID, "toolName": "get_weather", "input": {"location": "San Francisco"}}
        yield InteractionRequest("ask", InteractionKind.CLIENT_TOOL, payload)
        yield Done("paused")
        return
    if answer is None:
        said = _texts(ctx, ("user",))
        parts = [f"system={'|'.join(_texts(ctx, ('system', 'developer')))}"]
        images = [b for m in ctx.messages if m.role == "user" for b in m.content if isinstance(b, ImageBlock)]
        parts.append(f"images={len(images)}")
        parts.append(f"heard={'|'.join(said)}")
        answer = " ".join(parts)
    yield MessageStart("m1")
    for word in answer.split(" "):
        yield MessageDelta("m1", word + " ")
    yield MessageEnd("m1")
    yield Usage(input=3, output=len(answer.split(" ")))
    yield Done("end_turn")


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("compliance")
    settings = Settings(
        db_url=f"sqlite+aiosqlite:///{home / 'turnwire.db'}",
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
    )
    with serve_app(create_app({"mirror": mirror}, settings=settings), lifespan="on") as served:
        yield served


@pytest.fixture
def client(url: str) -> OpenAI:
    return OpenAI(base_url=f"{url}/v1", api_key="unused", max_retries=0, timeout=20)


def _sse(url: str, body: dict[str, Any]) -> tuple[httpx.Headers, list[tuple[str, str]]]:
    """The raw stream: ``(event name, data)`` of every event, keepalive comments left out."""
    with httpx.stream("POST", f"{url}/v1/responses", json={**body, "stream": True}, timeout=20) as answer:
        assert answer.status_code == 200
        raw = answer.read().decode()
    events = []
    for block in raw.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        name = next((line[7:] for line in lines if line.startswith("event: ")), "")
        data = "".join(line[6:] for line in lines if line.startswith("data: "))
        events.append((name, data))
    return answer.headers, events


def _check_response(response: dict[str, Any]) -> None:
    assert response["object"] == "response" and response["id"].startswith("resp_")
    assert response["status"] == "completed"
    assert isinstance(response["created_at"], int) and isinstance(response["completed_at"], int)
    usage = response["usage"]
    assert {"input_tokens", "output_tokens", "total_tokens"} <= set(usage)
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_basic_response(url: str) -> None:
    body = {"model": "mirror", "input": [{"type": "message", "role": "user", "content": "Say hello"}]}
    response = httpx.post(f"{url}/v1/responses", json=body, timeout=20).json()
    _check_response(response)
    (message,) = response["output"]
    assert message["type"] == "message" and message["role"] == "assistant"
    assert message["status"] == "completed"
    assert message["content"][0]["type"] == "output_text"
    assert message["content"][0]["text"].strip() == "system= images=0 heard=Say hello"


def test_streaming_response(url: str) -> None:
    headers, events = _sse(url, {"model": "mirror", "input": "Say hello"})
    assert headers["content-type"].startswith("text/event-stream")
    assert events[-1] == ("", "[DONE]")
    frames = [json.loads(data) for _, data in events[:-1]]
    assert [name for name, _ in events[:-1]] == [f["type"] for f in frames]  # event name == type
    types = [f["type"] for f in frames]
    assert types[0] == "response.created" and types[-1] == "response.completed"
    for needed in ("response.output_item.added", "response.output_text.delta", "response.output_text.done"):
        assert needed in types
    numbers = [f["sequence_number"] for f in frames]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    added = next(f for f in frames if f["type"] == "response.output_item.added")
    assert added["item"]["status"] == "in_progress"
    done = next(f for f in frames if f["type"] == "response.output_item.done")
    assert done["item"]["status"] == "completed" and done["item"]["content"]
    text = "".join(f["delta"] for f in frames if f["type"] == "response.output_text.delta")
    assert text == next(f["text"] for f in frames if f["type"] == "response.output_text.done")
    _check_response(frames[-1]["response"])
    assert frames[-1]["response"]["output"][0]["content"][0]["text"] == text


def test_system_prompt(client: OpenAI) -> None:
    done = client.responses.create(
        model="mirror",
        instructions="You are a pirate.",
        input=[
            {"type": "message", "role": "developer", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
        ],
    )
    assert done.instructions == "You are a pirate."
    assert done.output_text.strip() == "system=You are a pirate.|Be brief. images=0 heard=Hi"


def test_tool_calling(client: OpenAI) -> None:
    tools = [
        {
            "type": "function",
            "name": "get_weather",
            "description": "Weather for a location",
            "parameters": {"type": "object", "properties": {"location": {"type": "string"}}},
        }
    ]
    asked = client.responses.create(model="mirror", input="Weather in SF?", tools=tools)  # type: ignore[arg-type]
    (call,) = asked.output
    assert call.type == "function_call" and call.call_id == CALL_ID and call.name == "get_weather"
    assert json.loads(call.arguments) == {"location": "San Francisco"}
    assert asked.tools[0].name == "get_weather"  # type: ignore[union-attr]
    output = [{"type": "function_call_output", "call_id": call.call_id, "output": '{"temp": 18}'}]
    done = client.responses.create(model="mirror", input=output, previous_response_id=asked.id, tools=tools)  # type: ignore[arg-type]
    assert done.output[0].type == "message"
    assert done.output_text.strip() == "The weather tool said: {'temp': 18}"


def test_tool_calling_streaming(url: str) -> None:
    tools = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]
    _, events = _sse(url, {"model": "mirror", "input": "Weather?", "tools": tools})
    frames = [json.loads(data) for _, data in events[:-1]]
    calls = [f for f in frames if f["type"].startswith(("response.output_item", "response.function_call"))]
    assert [f["type"] for f in calls] == [
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
    ]
    added, delta, args_done, item_done = calls
    assert added["item"]["type"] == "function_call" and added["item"]["call_id"] == CALL_ID
    assert json.loads(delta["delta"]) == json.loads(args_done["arguments"]) == {"location": "San Francisco"}
    assert (
        item_done["item"]["arguments"] == args_done["arguments"]
        and item_done["item"]["status"] == "completed"
    )
    assert frames[-1]["type"] == "response.completed"


def test_image_input(client: OpenAI) -> None:
    done = client.responses.create(
        model="mirror",
        input=[
            {
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "What is this?"},
                    {"type": "input_image", "image_url": IMAGE},
                ],
            }
        ],
    )
    assert done.output_text.strip() == "system= images=1 heard=What is this?"


def test_multi_turn(client: OpenAI) -> None:
    first = client.responses.create(model="mirror", input="My name is Ada.")
    second = client.responses.create(model="mirror", input="What is my name?", previous_response_id=first.id)
    assert second.id != first.id and second.previous_response_id == first.id
    assert second.output_text.strip() == "system= images=0 heard=My name is Ada.|What is my name?"


def test_multi_turn_by_resending_the_history_without_store(client: OpenAI) -> None:
    first = client.responses.create(model="mirror", input="My name is Ada.", store=False)
    history = [
        {"role": "user", "content": "My name is Ada."},
        *[item.model_dump(exclude_none=True) for item in first.output],
        {"role": "user", "content": "What is my name?"},
    ]
    second = client.responses.create(model="mirror", input=history, store=False)  # type: ignore[arg-type]
    assert second.output_text.strip() == "system= images=0 heard=My name is Ada.|What is my name?"
