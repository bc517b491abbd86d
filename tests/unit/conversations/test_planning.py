"""Which inbound messages are new, how edits and regenerates rewind, what readers see."""

from __future__ import annotations

from typing import Any

from turnwire.conversations.planning import REWIND, continue_stored, effective, plan_inbound
from turnwire.formats.agentex import render_messages
from turnwire.model import Message, ReasoningBlock, TextBlock, ToolCallBlock, ToolResultBlock


def user(text: str) -> Message:
    return Message("user", [TextBlock(text)])


def bot(*blocks: Any) -> Message:
    return Message("assistant", list(blocks))


STORED = render_messages(
    [user("hi"), bot(ReasoningBlock("hmm"), TextBlock("hello")), user("how are you"), bot(TextBlock("fine"))]
)


def texts(contents: list[dict[str, Any]]) -> list[str]:
    return [c["content"] for c in contents if c["type"] == "text"]


def test_whole_history_resent_stores_only_the_new_message() -> None:
    inbound = [user("hi"), bot(TextBlock("hello")), user("how are you"), bot(TextBlock("fine")), user("bye")]
    plan = plan_inbound(STORED, inbound)
    assert plan.keep is None and texts(plan.contents()) == ["bye"]


def test_echoed_reasoning_after_the_stored_part_is_not_stored_again() -> None:
    inbound = [
        user("hi"),
        bot(TextBlock("hello")),
        user("how are you"),
        bot(ReasoningBlock("x"), TextBlock("fine")),
    ]
    inbound.append(user("bye"))
    assert texts(plan_inbound(STORED, inbound).new) == ["bye"]


def test_regenerate_rewinds_to_after_the_last_matching_message() -> None:
    plan = plan_inbound(STORED, [user("hi"), bot(TextBlock("hello")), user("how are you")])
    # Kept: hi, the reasoning, hello, how are you; the old answer "fine" is left behind.
    assert plan.keep == 4 and plan.new == []
    assert plan.contents()[0]["data"] == {"type": REWIND, "keep": 4}
    log = [{"id": str(i), "content": c} for i, c in enumerate([*STORED, *plan.contents()])]
    assert texts([r["content"] for r in effective(log)]) == ["hi", "hello", "how are you"]


def test_an_edited_message_rewinds_and_is_stored_with_what_follows() -> None:
    plan = plan_inbound(STORED, [user("hi"), bot(TextBlock("hello")), user("how old are you")])
    assert plan.keep == 3 and texts(plan.new) == ["how old are you"]
    log = [{"id": str(i), "content": c} for i, c in enumerate([*STORED, *plan.contents()])]
    assert texts([r["content"] for r in effective(log)]) == ["hi", "hello", "how old are you"]


def test_empty_inbound_changes_nothing() -> None:
    plan = plan_inbound(STORED, [])
    assert plan.keep is None and plan.contents() == []


def test_repeated_tool_ids_count_once_so_a_decision_then_an_output_still_match() -> None:
    stored = render_messages(
        [
            user("delete a"),
            bot(ToolCallBlock("c1", "delete_file", {"path": "a"})),
            Message("tool", [ToolResultBlock("c1", "delete_file", {"approved": True})]),
            Message("tool", [ToolResultBlock("c1", "delete_file", "ok")]),
            bot(TextBlock("Deleted a.")),
        ]
    )
    inbound = [
        user("delete a"),
        bot(ToolCallBlock("c1", "delete_file", {"path": "a"})),
        Message("tool", [ToolResultBlock("c1", "delete_file", "ok")]),
        bot(TextBlock("Deleted a.")),
        user("thanks"),
    ]
    plan = plan_inbound(stored, inbound)
    assert plan.keep is None and texts(plan.new) == ["thanks"]


def test_stored_history_continuation_drops_replayed_calls() -> None:
    stored = [user("delete a"), bot(ToolCallBlock("c1", "delete_file", {"path": "a"}))]
    new = [bot(ToolCallBlock("c1", "delete_file", {"path": "a"}), ToolResultBlock("c1", "delete_file", "ok"))]
    history = continue_stored(stored, new)
    assert len(history) == 3 and [type(b) for b in history[-1].content] == [ToolResultBlock]
