"""The pydantic-ai adapter, event by event, through the real runner, on offline pydantic-ai models
(``FunctionModel`` scripted like the recorded streams, ``TestModel`` for a structured result)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from model_tools import DELETED
from pydantic_models import DELETE_CALL, WEATHER_CALL, scripted_agent, structured_agent
from turnwire.agents import load_agent, pydantic_ai_agent
from turnwire.agents.pydantic_ai import PydanticAIAgent
from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    TextBlock,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


async def turn(*history: Message, agent: Any = None) -> list[Event]:
    ctx = TurnContext(messages=list(history), session_id="s1", trace_id=TRACE)
    return [e async for e in run_turn(agent or pydantic_ai_agent(scripted_agent()), ctx)]


def whole(events: list[Event]) -> list[Event]:
    """The events without the calls' streamed argument pieces (``ToolCallDelta``, issue 30), for
    the tests that read calls and results by position; the pieces have their own test."""
    return [e for e in events if type(e) is not ToolCallDelta]


def text_of(events: list[Event]) -> str:
    return "".join(e.delta for e in events if isinstance(e, MessageDelta))


async def test_text_parts_stream_as_one_message_with_usage() -> None:
    events = await turn(user("hello"))
    assert events[:5] == [
        MessageStart(id="msg_1_1"),
        MessageDelta(id="msg_1_1", delta="Hello"),
        MessageDelta(id="msg_1_1", delta="! How can"),
        MessageDelta(id="msg_1_1", delta=" I help?"),
        MessageEnd(id="msg_1_1"),
    ]
    usage = events[5]
    assert (
        isinstance(usage, Usage)
        and usage.input
        and usage.output
        and usage.total == usage.input + usage.output
    )
    assert events[6:] == [Done(stop_reason="end_turn", trace_id=TRACE)]


async def test_thinking_becomes_a_thought() -> None:
    events = await turn(user("what is 17 times 3"))
    assert events[:4] == [
        ThoughtStart(id="thought_1_1"),
        ThoughtDelta(id="thought_1_1", delta="17 × 3"),
        ThoughtDelta(id="thought_1_1", delta=" = 51."),
        ThoughtEnd(id="thought_1_1"),
    ]
    assert text_of(events) == "17 × 3 is 51."


async def test_the_models_argument_pieces_stream_as_tool_call_deltas_before_the_call() -> None:
    events = await turn(user("weather in Paris"))
    at = next(i for i, e in enumerate(events) if isinstance(e, ToolCall))
    deltas = events[:at]
    assert deltas and all(isinstance(d, ToolCallDelta) and d.id == WEATHER_CALL for d in deltas)
    assert [d.name for d in deltas if isinstance(d, ToolCallDelta)] == ["get_weather"] + [None] * (
        len(deltas) - 1
    )
    text = "".join(d.delta for d in deltas if isinstance(d, ToolCallDelta))
    assert orjson.loads(text) == {"city": "Paris"}
    assert events[at] == ToolCall(id=WEATHER_CALL, name="get_weather", input={"city": "Paris"})


async def test_a_function_tool_call_and_its_result_then_the_answer() -> None:
    events = whole(await turn(user("weather in Paris")))
    weather = {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
    assert events[:2] == [
        ToolCall(id=WEATHER_CALL, name="get_weather", input={"city": "Paris"}),
        ToolResult(
            id=WEATHER_CALL,
            name="get_weather",
            output='{"city":"Paris","condition":"Sunny","temperature_c":21}',
            data=weather,
        ),
    ]
    assert text_of(events) == "It is sunny and 21 °C in Paris."
    assert events[-1] == Done(stop_reason="end_turn", trace_id=TRACE)


async def test_earlier_turns_reach_the_model_as_pydantic_ai_messages() -> None:
    seen: list[Any] = []
    agent = scripted_agent()
    original = agent.model.stream_function  # type: ignore[union-attr]

    async def spy(messages: Any, info: Any) -> Any:
        seen.append(messages)
        async for piece in original(messages, info):
            yield piece

    agent.model.stream_function = spy  # type: ignore[union-attr]
    earlier = [
        user("weather in Paris"),
        Message(
            role="assistant",
            content=[
                ToolCallBlock(id="c0", name="get_weather", input={"city": "Paris"}),
                ToolResultBlock(id="c0", output="Sunny"),
                TextBlock("It is sunny."),
            ],
        ),
    ]
    events = await turn(*earlier, user("hello"), agent=pydantic_ai_agent(agent))
    assert text_of(events) == "Hello! How can I help?"
    kinds = [[part.part_kind for part in m.parts] for m in seen[0]]
    assert kinds == [["user-prompt"], ["tool-call"], ["tool-return"], ["text"], ["user-prompt"]]
    assert seen[0][2].parts[0].content == "Sunny" and seen[0][2].parts[0].tool_name == "get_weather"


async def test_an_approval_tool_pauses_the_turn_with_a_request() -> None:
    DELETED.clear()
    events = whole(await turn(user("delete notes.txt")))
    call = ToolCall(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"})
    assert events[0] == call
    assert isinstance(events[1], Usage)
    assert events[2:] == [
        InteractionRequest(
            id=f"approve_{DELETE_CALL}",
            kind="user_approval",
            payload={
                "toolCallId": DELETE_CALL,
                "toolName": "delete_file",
                "toolCall": {
                    "toolCallId": DELETE_CALL,
                    "name": "delete_file",
                    "rawInput": {"path": "notes.txt"},
                },
            },
        ),
        Done(stop_reason="paused", trace_id=TRACE),
    ]
    assert DELETED == []


def paused(approved: bool | None) -> list[Message]:
    blocks: list[Any] = [ToolCallBlock(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"})]
    if approved is not None:
        blocks.append(
            ToolResultBlock(id=DELETE_CALL, output={"approved": approved, "interactionToken": "ap_x"})
        )
    return [user("delete notes.txt"), Message(role="assistant", content=blocks)]


async def test_approved_the_deferred_tool_runs() -> None:
    DELETED.clear()
    events = await turn(*paused(True))
    assert not any(isinstance(e, ToolCall) for e in events), "the paused turn announced the call already"
    result = events[0]
    assert isinstance(result, ToolResult) and result.data == {"path": "notes.txt", "deleted": True}
    assert DELETED == ["notes.txt"]
    assert text_of(events) == "Deleted notes.txt."
    assert events[-1] == Done(stop_reason="end_turn", trace_id=TRACE)


async def test_denied_the_deferred_tool_does_not_run() -> None:
    DELETED.clear()
    events = await turn(*paused(False))
    result = next(e for e in events if isinstance(e, ToolResult))
    assert (result.id, result.denied, result.is_error) == (DELETE_CALL, True, True)
    assert DELETED == []
    assert text_of(events) == "I did not delete notes.txt."


async def test_a_replay_without_the_decision_asks_again() -> None:
    events = await turn(*paused(None))
    assert [type(e).__name__ for e in events] == ["InteractionRequest", "Done"]
    assert events[-1].stop_reason == "paused"  # type: ignore[union-attr]


async def test_warm_resume_equals_cold_replay() -> None:
    agent = pydantic_ai_agent(scripted_agent())
    agen = agent(TurnContext(messages=[user("delete notes.txt")], session_id="s1", trace_id=TRACE))
    async for event in agen:
        if isinstance(event, Done):
            break
    resumed = TurnContext(messages=paused(True), session_id="s1", trace_id=TRACE)
    warm = [await agen.asend(resumed)]
    async for event in agen:
        warm.append(event)
    cold = [e async for e in agent(resumed)]
    assert [e for e in warm if not isinstance(e, Usage)] == [e for e in cold if not isinstance(e, Usage)]
    assert text_of(warm) == "Deleted notes.txt."


async def test_a_structured_result_is_a_data_event() -> None:
    events = await turn(user("forecast"), agent=pydantic_ai_agent(structured_agent()))
    assert DataEvent(name="result", data={"city": "Paris", "temperature_c": 21}) in events
    assert events[-1] == Done(stop_reason="end_turn", trace_id=TRACE)


async def test_a_model_failure_is_an_error_event() -> None:
    events = await turn(user("fail"))
    assert text_of(events) == "Starting"
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.code == "model_error" and "ModelDown: the scripted model went down" in error.message
    assert events[-1] == Done(stop_reason="error", trace_id=TRACE)


def test_the_loader_wraps_a_pydantic_ai_agent_object() -> None:
    agent = load_agent("pydantic_models:pydantic_weather")
    assert isinstance(agent, PydanticAIAgent)


def test_history_converts_to_pydantic_ai_messages_and_back() -> None:
    from turnwire.agents.chat_history import to_chat_messages
    from turnwire.agents.pydantic_ai import from_model_messages, to_model_messages

    history = [
        Message(role="system", content=[TextBlock("Be brief.")]),
        user("weather in Paris and Rome"),
        Message(
            role="assistant",
            content=[
                TextBlock("Let me look."),
                ToolCallBlock(id="c1", name="get_weather", input={"city": "Paris"}),
                ToolCallBlock(id="c2", name="get_weather", input={"city": "Rome"}),
            ],
        ),
        Message(role="tool", content=[ToolResultBlock(id="c1", name="get_weather", output="Sunny")]),
        Message(role="tool", content=[ToolResultBlock(id="c2", name="get_weather", output={"rain": True})]),
        Message(role="assistant", content=[TextBlock("Sunny in Paris, rain in Rome.")]),
        user("thanks"),
    ]
    chat = to_chat_messages(history).messages
    model_messages = to_model_messages(chat)
    assert [type(m).__name__ for m in model_messages] == [
        "ModelRequest", "ModelRequest", "ModelResponse", "ModelRequest", "ModelResponse", "ModelRequest",
    ]  # fmt: skip
    assert [p.part_kind for p in model_messages[2].parts] == ["text", "tool-call", "tool-call"]
    assert [(p.tool_call_id, p.tool_name, p.content) for p in model_messages[3].parts] == [
        ("c1", "get_weather", "Sunny"),
        ("c2", "get_weather", '{"rain":true}'),
    ]
    back = from_model_messages(model_messages)
    assert to_chat_messages(back).messages == chat


async def test_a_static_system_prompt_is_kept_on_later_turns() -> None:
    from pydantic_ai import Agent
    from pydantic_ai.models.function import FunctionModel

    seen: list[Any] = []

    async def model(messages: Any, info: Any) -> Any:
        seen.append(messages)
        yield "ok"

    agent = Agent(FunctionModel(stream_function=model), system_prompt="Answer in French.")
    said = Message(role="assistant", content=[TextBlock("Bonjour.")])
    await turn(user("hi"), said, user("hello"), agent=pydantic_ai_agent(agent))
    parts = [(p.part_kind, p.content) for m in seen[0] for p in m.parts if p.part_kind != "text"]
    assert parts == [("system-prompt", "Answer in French."), ("user-prompt", "hi"), ("user-prompt", "hello")]


async def test_closing_the_turn_cancels_the_pydantic_ai_run() -> None:
    import asyncio
    import time

    from pydantic_models import CANCELLED

    CANCELLED.clear()
    run = run_turn(pydantic_ai_agent(scripted_agent()), TurnContext(messages=[user("slow")]))
    seen = []
    async for event in run:
        seen.append(event)
        if isinstance(event, MessageDelta):
            break
    closed = time.monotonic()
    await run.aclose()
    assert await asyncio.to_thread(CANCELLED.wait, 5)
    assert time.monotonic() - closed < 1.0
    assert text_of(seen) == "Thinking" and run.cancelled


async def test_a_model_http_error_gets_the_same_code_as_the_openai_adapter() -> None:
    events = await turn(user("rate limited"))
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.code == "model_rate_limited"
    assert error.detail == {"exception": "ModelHTTPError", "status": 429, "retryAfter": 20}
    assert error.message.startswith("The pydantic-ai agent failed: ModelHTTPError: ")
    assert events[-1] == Done(stop_reason="error", trace_id=TRACE)


async def test_a_deferred_external_call_is_a_client_tool_request_and_its_output_resumes_the_run() -> None:
    from pydantic_models import LOCATION_CALL

    asked = whole(await turn(user("where am I")))
    assert asked[0] == ToolCall(id=LOCATION_CALL, name="get_location", input={})
    request = asked[-2]
    assert isinstance(request, InteractionRequest) and request.kind == "client_tool"
    assert request.payload == {"toolCallId": LOCATION_CALL, "toolName": "get_location", "input": {}}
    assert asked[-1] == Done(stop_reason="paused", trace_id=TRACE)

    call = ToolCallBlock(id=LOCATION_CALL, name="get_location", input={})
    output = ToolResultBlock(id=LOCATION_CALL, name="get_location", output="Lyon")
    answered = await turn(user("where am I"), Message(role="assistant", content=[call, output]))
    assert text_of(answered) == "You are in Lyon."
    assert answered[-1] == Done(stop_reason="end_turn", trace_id=TRACE)
