"""The LangGraph adapter: graphs with ``ChatOpenAI`` on recorded Chat Completions streams, and small
graphs without a model for what a model does not stream (questions, reasoning blocks, custom data)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, MessagesState, StateGraph

from langgraph_graphs import question_graph, weather_graph
from model_tools import DELETED
from openai_fake import FakeOpenAI, fake_openai
from turnwire.agents import langgraph_agent
from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    InteractionRequest,
    Message,
    MessageDelta,
    StepEnd,
    StepStart,
    TextBlock,
    ThoughtDelta,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio

DELETE_CALL = "call_D3l3t3N0t3sTxt0000000001"


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    """The model client's connection pool, closed in the test's own event loop."""
    async with httpx.AsyncClient() as client:
        yield client


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


async def turn(agent: Any, *history: Message, session: str = "s") -> list[Event]:
    return [e async for e in run_turn(agent, TurnContext(messages=list(history), session_id=session))]


def text_of(events: list[Event]) -> str:
    return "".join(e.delta for e in events if isinstance(e, MessageDelta))


def one_node(node: Any) -> Any:
    builder = StateGraph(MessagesState)
    builder.add_node("node", node)
    builder.add_edge(START, "node")
    builder.add_edge("node", END)
    return builder.compile()


async def test_a_tool_round_with_usage_summed_over_model_calls(
    fake: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    events = await turn(langgraph_agent(weather_graph(fake.base_url, http=http)), user("weather in Paris"))
    call = next(e for e in events if isinstance(e, ToolCall))
    assert (call.id, call.name, call.input) == (
        "call_Qx8Tz3LmN5pVb2Rk7Yc1Wd4F",
        "get_weather",
        {"city": "Paris"},
    )
    result = next(e for e in events if isinstance(e, ToolResult))
    assert result.data == {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
    assert text_of(events) == "It is sunny and 21 °C in Paris."
    assert [e for e in events if isinstance(e, Usage)] == [Usage(input=159, output=26, total=185)]
    nodes = [e.data["node"] for e in events if isinstance(e, DataEvent) and e.name == "langgraph_node"]
    assert nodes == ["model", "tools", "model"]
    # Each node is a named step (issue 30): opened by its first streamed message (or its update),
    # closed by its update, so the text of the last model step falls inside its step.
    steps = [(type(e).__name__, e.name) for e in events if isinstance(e, StepStart | StepEnd)]
    assert steps == [
        ("StepStart", "model"), ("StepEnd", "model"),
        ("StepStart", "tools"), ("StepEnd", "tools"),
        ("StepStart", "model"), ("StepEnd", "model"),
    ]  # fmt: skip
    last_open = max(i for i, e in enumerate(events) if isinstance(e, StepStart))
    first_text = next(i for i, e in enumerate(events) if isinstance(e, MessageDelta))
    assert last_open < first_text < max(i for i, e in enumerate(events) if isinstance(e, StepEnd))


async def test_the_conversation_is_the_state_each_turn(fake: FakeOpenAI, http: httpx.AsyncClient) -> None:
    agent = langgraph_agent(weather_graph(fake.base_url, http=http))
    await turn(agent, user("hello"), session="same")
    history = [user("hello"), Message(role="assistant", content=[TextBlock("Hi.")]), user("hello")]
    await turn(agent, *history, session="same")
    # The thread's own copy was replaced by the conversation, not appended to it.
    assert [m["role"] for m in fake.requests[-1]["messages"]] == ["user", "assistant", "user"]


@pytest.mark.parametrize(
    ("approved", "reply"), [(True, "Deleted notes.txt."), (False, "I did not delete notes.txt.")]
)
async def test_an_interrupt_asking_to_approve_a_call_pauses_and_resumes(
    fake: FakeOpenAI, http: httpx.AsyncClient, approved: bool, reply: str
) -> None:
    agent = langgraph_agent(weather_graph(fake.base_url, http=http))
    session = f"approve-{approved}"
    DELETED.clear()
    asked = await turn(agent, user("delete notes.txt"), session=session)
    request = next(e for e in asked if isinstance(e, InteractionRequest))
    assert request.kind == "user_approval"
    assert request.payload["toolCall"] == {
        "toolCallId": DELETE_CALL,
        "name": "delete_file",
        "rawInput": {"path": "notes.txt"},
    }
    assert asked[-1].stop_reason == "paused"  # type: ignore[union-attr]
    assert DELETED == []
    call = ToolCallBlock(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"})
    replayed = await turn(
        agent, user("delete notes.txt"), Message(role="assistant", content=[call]), session=session
    )
    assert [type(e) for e in replayed] == [InteractionRequest, Done]  # asked again, nothing ran
    decision = ToolResultBlock(id=DELETE_CALL, output={"approved": approved, "interactionToken": "ap_x"})
    done = await turn(
        agent, user("delete notes.txt"), Message(role="assistant", content=[call, decision]), session=session
    )
    assert text_of(done) == reply
    result = next(e for e in done if isinstance(e, ToolResult))
    assert result.id == DELETE_CALL and bool(result.denied) is not approved
    assert (["notes.txt"] if approved else []) == DELETED


async def test_a_resume_without_the_paused_state_says_so(fake: FakeOpenAI, http: httpx.AsyncClient) -> None:
    await turn(
        langgraph_agent(weather_graph(fake.base_url, http=http)), user("delete notes.txt"), session="lost"
    )
    call = ToolCallBlock(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"})
    decision = ToolResultBlock(id=DELETE_CALL, output={"approved": True, "interactionToken": "ap_x"})
    other_worker = langgraph_agent(weather_graph(fake.base_url, http=http))  # its own in-memory checkpointer
    done = await turn(
        other_worker,
        user("delete notes.txt"),
        Message(role="assistant", content=[call, decision]),
        session="lost",
    )
    error = next(e for e in done if isinstance(e, ErrorEvent))
    assert error.code == "langgraph_state_lost" and error.detail == {"threadId": "lost"}


async def test_a_shared_checkpointer_resumes_on_another_worker(
    fake: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    saver = InMemorySaver()
    DELETED.clear()
    await turn(
        langgraph_agent(weather_graph(fake.base_url, http=http), checkpointer=saver),
        user("delete notes.txt"),
        session="shared",
    )
    call = ToolCallBlock(id=DELETE_CALL, name="delete_file", input={"path": "notes.txt"})
    decision = ToolResultBlock(id=DELETE_CALL, output={"approved": True, "interactionToken": "ap_x"})
    other = langgraph_agent(weather_graph(fake.base_url, http=http), checkpointer=saver)
    done = await turn(
        other, user("delete notes.txt"), Message(role="assistant", content=[call, decision]), session="shared"
    )
    assert text_of(done) == "Deleted notes.txt." and DELETED == ["notes.txt"]


async def test_any_other_interrupt_is_a_question_the_next_message_answers() -> None:
    agent = langgraph_agent(question_graph())
    asked = await turn(agent, user("pick a city"), session="q")
    request = next(e for e in asked if isinstance(e, InteractionRequest))
    assert request.kind == "user_input"
    assert request.payload["prompt"] == "Which city?"
    assert request.payload["interrupt"] == {"question": "Which city?"}
    assert asked[-1].stop_reason == "paused"  # type: ignore[union-attr]
    history = [user("pick a city"), Message(role="assistant", content=[]), user("Lyon")]
    answered = await turn(agent, *history, session="q")
    assert text_of(answered) == "You chose Lyon."
    assert answered[-1].stop_reason == "end_turn"  # type: ignore[union-attr]


async def test_a_graph_without_checkpointer_serves_plain_turns() -> None:
    def hello(state: MessagesState) -> dict[str, Any]:
        return {"messages": [AIMessage(content=f"{len(state['messages'])} messages so far.")]}

    agent = langgraph_agent(one_node(hello), checkpointer=None)
    assert agent.graph.checkpointer is None
    events = await turn(
        agent, user("hi"), Message(role="assistant", content=[TextBlock("Hey.")]), user("again")
    )
    assert text_of(events) == "3 messages so far."


async def test_reasoning_blocks_and_custom_data() -> None:
    def think(state: MessagesState) -> dict[str, Any]:
        get_stream_writer()({"progress": 0.5})
        content: list[Any] = [
            {"type": "reasoning", "summary": [{"type": "summary_text", "text": "Thinking it over."}]},
            {"type": "text", "text": "Done thinking."},
        ]
        return {"messages": [AIMessage(content=content)]}

    events = await turn(langgraph_agent(one_node(think)), user("think"))
    assert "".join(e.delta for e in events if isinstance(e, ThoughtDelta)) == "Thinking it over."
    assert text_of(events) == "Done thinking."
    assert DataEvent(name="custom", data={"progress": 0.5}, transient=True) in events


async def test_a_model_error_keeps_the_openai_adapters_code(
    fake: FakeOpenAI, http: httpx.AsyncClient
) -> None:
    events = await turn(langgraph_agent(weather_graph(fake.base_url, http=http)), user("rate limited"))
    error = next(e for e in events if isinstance(e, ErrorEvent))
    assert error.code == "model_rate_limited"
    assert error.detail == {"status": 429, "model": "gpt-4o-mini", "retryAfter": 20}
    assert events[-1].stop_reason == "error"  # type: ignore[union-attr]


async def test_a_client_leaving_closes_the_model_stream(fake: FakeOpenAI, http: httpx.AsyncClient) -> None:
    agent = langgraph_agent(weather_graph(fake.base_url, http=http))
    stream = agent(TurnContext(messages=[user("slow")], session_id="slow"))
    async with contextlib.aclosing(stream):
        async for event in stream:
            if isinstance(event, MessageDelta):
                break
    record = fake.disconnects[-1]
    assert record.scenario == "slow"
    assert await asyncio.to_thread(record.left_event.wait, 5)
