"""The demo's interactive commands, event by event, through the plain runner (no warm session)."""

from __future__ import annotations

import pytest

from turnwire.agents import demo_agent
from turnwire.model import (
    Done,
    Event,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageStart,
    TextBlock,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Usage,
)
from turnwire.runtime import TurnContext, run_turn

pytestmark = pytest.mark.anyio
TRACE = "t" * 32


async def turn(*messages: Message) -> list[Event]:
    return [e async for e in run_turn(demo_agent, TurnContext(list(messages), "s", trace_id=TRACE))]


def user(text: str) -> Message:
    return Message("user", [TextBlock(text)])


def gate(call_id: str, path: str) -> InteractionRequest:
    arguments = {"path": path}
    return InteractionRequest(
        id=f"approve_{call_id}",
        kind="user_approval",
        payload={
            "toolCallId": call_id,
            "toolName": "delete_file",
            "toolCall": {"toolCallId": call_id, "name": "delete_file", "rawInput": arguments},
        },
    )


def decided(*answers: tuple[str, str, bool]) -> Message:
    blocks: list = []
    for call_id, path, approved in answers:
        blocks.append(ToolCallBlock(call_id, "delete_file", {"path": path}))
        blocks.append(ToolResultBlock(call_id, output={"approved": approved, "interactionToken": "ap_x"}))
    return Message("assistant", blocks)


def said(message_id: str, *deltas: str) -> list[Event]:
    return [MessageStart(message_id), *(MessageDelta(message_id, d) for d in deltas), MessageEnd(message_id)]


async def test_delete_asks_for_approval_of_one_call_per_path() -> None:
    assert await turn(user("please"), user("Delete a.txt and b.txt")) == [
        ToolCall(id="call_1", name="delete_file", input={"path": "a.txt"}),
        gate("call_1", "a.txt"),
        ToolCall(id="call_2", name="delete_file", input={"path": "b.txt"}),
        gate("call_2", "b.txt"),
        Done(stop_reason="paused", trace_id=TRACE),
    ]


async def test_an_approved_delete_runs_and_a_denied_one_does_not() -> None:
    out = await turn(
        user("delete a.txt and b.txt"), decided(("call_1", "a.txt", True), ("call_2", "b.txt", False))
    )
    reply = "Deleted a.txt. I did not delete b.txt."
    assert out == [
        ToolResult(
            id="call_1", name="delete_file", output="a.txt deleted", data={"path": "a.txt", "deleted": True}
        ),
        ToolResult(id="call_2", name="delete_file", output="The user denied it.", is_error=True, denied=True),
        *said("msg_1_1", "Deleted ", "a.txt. ", "I ", "did ", "not ", "delete ", "b.txt."),
        Usage(input=4, output=7, total=11),
        Done(stop_reason="end_turn", trace_id=TRACE),
    ]
    assert "".join(e.delta for e in out if isinstance(e, MessageDelta)) == reply


async def test_one_answer_of_two_asks_again_for_the_other_only() -> None:
    partial = Message(
        "assistant",
        [
            *decided(("call_1", "a.txt", True)).content,
            ToolCallBlock("call_2", "delete_file", {"path": "b.txt"}),
        ],
    )
    assert await turn(user("delete a.txt and b.txt"), partial) == [
        gate("call_2", "b.txt"),
        Done(stop_reason="paused", trace_id=TRACE),
    ]


async def test_a_call_that_already_ran_is_not_run_again() -> None:
    history = decided(("call_1", "a.txt", True))
    history.content.append(ToolResultBlock("call_1", output="a.txt deleted"))
    out = await turn(user("delete a.txt"), history)
    assert not [e for e in out if isinstance(e, ToolResult)]
    assert "".join(e.delta for e in out if isinstance(e, MessageDelta)) == "Deleted a.txt."


async def test_ask_me_asks_and_the_next_message_is_the_answer_whatever_it_says() -> None:
    assert await turn(user("ask me")) == [
        *said("msg_1_1", "What ", "should ", "I ", "echo?"),
        InteractionRequest(id="input_1", kind="user_input", payload={"prompt": "What should I echo?"}),
        Done(stop_reason="paused", trace_id=TRACE),
    ]
    asked = Message("assistant", [TextBlock("What should I echo?")])
    assert await turn(user("ASK ME"), asked, user("delete x.txt")) == [
        *said("msg_2_1", "You ", "answered: ", "delete ", "x.txt"),
        Usage(input=2, output=4, total=6),
        Done(stop_reason="end_turn", trace_id=TRACE),
    ]
