"""The multitask rules without a server: which requests resume a paused turn, how a turn that
waited for another plans its client's history, and the setting's refusals."""

from __future__ import annotations

from typing import Any

import pytest

from turnwire.conversations.planning import plan_inbound
from turnwire.conversations.stored import Conversation
from turnwire.model import Message, TextBlock, ToolCallBlock, ToolResultBlock
from turnwire.server import preflight
from turnwire.server.turns.multitask import after_waiting, answers_paused_turn
from turnwire.store.base import StoredMessage

pytestmark = pytest.mark.anyio

WAITED = "trace-first"


def text(author: str, words: str) -> dict[str, Any]:
    content = {"type": "text", "author": author, "style": "static", "format": "plain", "content": words}
    return {**content, "attachments": None}


class Branch:
    """A store holding one branch: ``count to 3`` and the first turn's answer, as stored while the
    second request waited (each content with its note beside it)."""

    def __init__(self) -> None:
        first = {"message_id": f"msg-{WAITED}", "turn": WAITED}
        rows = [(text("user", "count to 3"), {"message_id": "u0"})]
        rows += [(text("agent", n), first) for n in ("1", "2", "3")]
        self.messages = [
            StoredMessage({"id": f"row-{i}", "content": c}, note, f"row-{i - 1}" if i else None)
            for i, (c, note) in enumerate(rows)
        ]

    async def read_branch(self, task_id: str, leaf_id: str | None = None) -> list[StoredMessage]:
        return self.messages


def opened(history: list[Message]) -> Conversation:
    """The conversation as the pipeline opens it once the first turn is stored: ``history``
    planned on the branch."""
    stored = [m.record for m in Branch().messages]
    plan = plan_inbound([r["content"] for r in stored], history)
    return Conversation({"id": "task"}, [], plan, stored=stored)


def user(words: str, id: str | None = None) -> Message:
    return Message("user", [TextBlock(words)], id=id)


async def test_a_history_sent_before_the_first_answer_goes_after_it() -> None:
    history = [user("count to 3", "u0"), user("weather in Rome", "u1")]
    planned = await after_waiting(Branch(), opened(history), history, WAITED)  # type: ignore[arg-type]
    assert [m.content[0].text for m in planned.history] == ["count to 3", "1", "2", "3", "weather in Rome"]
    assert planned.plan.keep is None  # no rewind: the first answer stays in the conversation
    assert [c["content"] for c in planned.plan.new] == ["weather in Rome"]
    assert planned.parent_id == "row-3"


async def test_the_clients_copy_of_the_partial_answer_is_not_stored_again() -> None:
    partial = Message("assistant", [TextBlock("1"), TextBlock("2")], id=f"msg-{WAITED}")
    history = [user("count to 3", "u0"), partial, user("weather in Rome", "u1")]
    planned = await after_waiting(Branch(), opened(history), history, WAITED)  # type: ignore[arg-type]
    assert planned.plan.keep is None
    assert [c["content"] for c in planned.plan.new] == ["weather in Rome"]


async def test_a_history_holding_the_whole_answer_goes_on_from_it() -> None:
    # An Agenta client (no message ids) that read the first answer to its end, or cancelled it
    # where the store did, sends it back with its next message: nothing of it is stored again.
    answer = Message("assistant", [TextBlock("1"), TextBlock("2"), TextBlock("3")])
    history = [user("count to 3"), answer, user("weather in Rome")]
    conversation = opened(history)
    assert conversation.plan.keep is None
    assert await after_waiting(Branch(), conversation, history, WAITED) is conversation  # type: ignore[arg-type]
    assert [c["content"] for c in conversation.plan.new] == ["weather in Rome"]


async def test_an_edited_history_is_taken_as_sent() -> None:
    edited = [user("count to 5"), user("weather")]
    conversation = opened(edited)
    assert await after_waiting(Branch(), conversation, edited, WAITED) is conversation  # type: ignore[arg-type]


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
