"""The multitask rules without a server: which requests resume a paused turn, how a turn that
waited for another plans its client's history, and the setting's refusals."""

from __future__ import annotations

from typing import Any

import pytest

from turnwire.conversations.planning import InboundPlan
from turnwire.conversations.stored import Conversation
from turnwire.formats.agentex.annotations import annotated
from turnwire.model import Message, TextBlock, ToolCallBlock, ToolResultBlock
from turnwire.server import preflight
from turnwire.server.turns.multitask import after_waiting, answers_paused_turn

WAITED = "trace-first"


def text(author: str, words: str, **note: Any) -> dict[str, Any]:
    content = {"type": "text", "author": author, "style": "static", "format": "plain", "content": words}
    return annotated({**content, "attachments": None}, **note)


def record(i: int, content: dict[str, Any]) -> dict[str, Any]:
    return {"id": f"row-{i}", "content": content}


def user(words: str, id: str | None = None) -> Message:
    return Message("user", [TextBlock(words)], id=id)


def first_turn_stored() -> Conversation:
    """``count to 3`` and the first turn's answer, as stored while the second request waited."""
    stored = [
        record(0, text("user", "count to 3", message_id="u0")),
        record(1, text("agent", "1", message_id=f"msg-{WAITED}", turn=WAITED)),
        record(2, text("agent", "2", message_id=f"msg-{WAITED}", turn=WAITED)),
        record(3, text("agent", "3", message_id=f"msg-{WAITED}", turn=WAITED)),
    ]
    return Conversation({"id": "task"}, [], InboundPlan(), stored=stored)


def test_a_history_sent_before_the_first_answer_goes_after_it() -> None:
    planned = after_waiting(
        first_turn_stored(), [user("count to 3", "u0"), user("weather in Rome", "u1")], WAITED
    )
    assert [m.content[0].text for m in planned.history] == ["count to 3", "1", "2", "3", "weather in Rome"]
    assert planned.plan.keep is None  # no rewind: the first answer stays in the conversation
    assert [c["content"] for c in planned.plan.new] == ["weather in Rome"]


def test_the_clients_copy_of_the_partial_answer_is_not_stored_again() -> None:
    partial = Message("assistant", [TextBlock("1"), TextBlock("2")], id=f"msg-{WAITED}")
    history = [user("count to 3", "u0"), partial, user("weather in Rome", "u1")]
    planned = after_waiting(first_turn_stored(), history, WAITED)
    assert planned.plan.keep is None
    assert [c["content"] for c in planned.plan.new] == ["weather in Rome"]


def test_an_edited_history_is_taken_as_sent() -> None:
    conversation = first_turn_stored()
    assert after_waiting(conversation, [user("count to 5"), user("weather")], WAITED) is conversation


def test_resumes_are_told_from_new_turns() -> None:
    answer = {"approved": True, "interactionToken": "t"}
    decision = Message("tool", [ToolResultBlock("call_1", output=answer)])
    call = Message("assistant", [ToolCallBlock("call_1", "delete_file", {"path": "x"})])
    assert answers_paused_turn([call, decision], None, regenerate=False)
    assert answers_paused_turn([user("go on")], "msg-continued", regenerate=False)
    assert not answers_paused_turn([user("weather")], None, regenerate=False)
    assert not answers_paused_turn([user("weather")], "msg-regenerated", regenerate=True)
    assert not answers_paused_turn([], None, regenerate=False)


@pytest.mark.parametrize(
    ("environ", "overrides", "option"),
    [
        ({"TURNWIRE_MULTITASK": "rollback"}, {}, "TURNWIRE_MULTITASK"),
        ({}, {"multitask": "later"}, "--multitask"),
    ],
)
def test_an_unknown_strategy_stops_the_start_naming_its_source(
    environ: dict[str, str], overrides: dict[str, Any], option: str
) -> None:
    with pytest.raises(preflight.ConfigError) as caught:
        preflight.settings_from(environ, overrides)
    assert caught.value.option == option
    assert caught.value.fix == "use reject, interrupt or enqueue"
    assert preflight.settings_from({"TURNWIRE_MULTITASK": "enqueue"}, {}).multitask == "enqueue"
