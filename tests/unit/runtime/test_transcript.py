"""Reading histories: last user text, counts, and approval decisions for cold resume."""

from __future__ import annotations

from turnwire.model import ImageBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from turnwire.runtime import Decision, TurnContext, decisions, last_user_text, tool_call_count, user_turns


def user(*blocks: object) -> Message:
    return Message(role="user", content=list(blocks))  # type: ignore[arg-type]


def test_last_user_text_joins_text_blocks_of_the_last_user_message_and_trims() -> None:
    history = [
        user(TextBlock("first")),
        Message(role="assistant", content=[TextBlock("reply")]),
        user(TextBlock("  count "), ImageBlock(uri="https://x/y.png"), TextBlock("to 3\n")),
        Message(role="assistant", content=[TextBlock("later assistant text")]),
    ]
    assert last_user_text(history) == "count to 3"


def test_last_user_text_is_empty_without_user_messages() -> None:
    assert last_user_text([Message(role="system", content=[TextBlock("be nice")])]) == ""
    assert last_user_text([]) == ""


def test_counts_user_turns_and_distinct_tool_calls() -> None:
    history = [
        user(TextBlock("a")),
        Message(role="assistant", content=[ToolCallBlock(id="c1"), ToolCallBlock(id="c1"), ToolCallBlock()]),
        user(TextBlock("b")),
        Message(role="tool", content=[ToolResultBlock(id="c1", output="x"), ToolCallBlock(id="c2")]),
    ]
    assert user_turns(history) == 2
    assert tool_call_count(history) == 3  # c1, c2 and one id-less call


def test_decisions_read_approvals_and_denials_with_their_calls() -> None:
    history = [
        user(TextBlock("delete /x and /y")),
        Message(
            role="assistant",
            content=[
                ToolCallBlock(id="call_1", name="delete_file", input={"path": "/x"}),
                ToolCallBlock(id="call_2", name="delete_file", input={"path": "/y"}),
            ],
        ),
        Message(
            role="tool",
            content=[
                ToolResultBlock(id="call_1", output={"approved": True, "interactionToken": "perm_1"}),
                ToolResultBlock(id="call_2", output={"approved": False}),
            ],
        ),
    ]
    assert decisions(history) == {
        "call_1": Decision("call_1", True, "perm_1", "delete_file", {"path": "/x"}, 2),
        "call_2": Decision("call_2", False, None, "delete_file", {"path": "/y"}, 2),
    }
    assert TurnContext(messages=history).decisions() == decisions(history)


def test_only_boolean_approved_objects_are_decisions() -> None:
    history = [
        Message(
            role="tool",
            content=[
                ToolResultBlock(id="a", output="approved"),
                ToolResultBlock(id="b", output={"approved": "yes"}),
                ToolResultBlock(id="c", output={"result": True}),
                ToolResultBlock(id=None, output={"approved": True}),
                ToolResultBlock(id="d", output=None),
                ToolResultBlock(id="e", output={"approved": 1}),
            ],
        )
    ]
    assert decisions(history) == {}


def test_a_later_decision_replaces_an_earlier_one_and_calls_may_come_after() -> None:
    history = [
        Message(
            role="tool", content=[ToolResultBlock(id="c", output={"approved": False, "interactionToken": ""})]
        ),
        Message(
            role="tool",
            content=[ToolResultBlock(id="c", output={"approved": True, "interactionToken": "p2"})],
        ),
        Message(role="assistant", content=[ToolCallBlock(id="c", name="rm", input={"path": "/"})]),
    ]
    assert decisions(history) == {"c": Decision("c", True, "p2", "rm", {"path": "/"}, 1)}


def test_decision_without_a_matching_call_has_no_name_or_input() -> None:
    history = [Message(role="tool", content=[ToolResultBlock(id="lost", output={"approved": True})])]
    assert decisions(history) == {"lost": Decision("lost", True, None, None, None, 0)}
