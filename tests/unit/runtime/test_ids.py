"""Tool call ids scoped to the conversation: reused ids renamed, open calls continued, collisions
within one turn reported."""

from __future__ import annotations

from turnwire.model import (
    ErrorEvent,
    InteractionRequest,
    Message,
    MessageStart,
    TextBlock,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    ToolResultBlock,
)
from turnwire.runtime.ids import DUPLICATE_ID_CODE, IdScope, base_id, scoped_decisions


def _finished(call_id: str) -> list[Message]:
    return [
        Message("user", [TextBlock("hi")]),
        Message("assistant", [ToolCallBlock(call_id, "upper", {"text": "hi"})]),
        Message("tool", [ToolResultBlock(call_id, "upper", "HI")]),
    ]


def test_a_call_id_the_history_finished_is_renamed_with_everything_naming_it() -> None:
    scope = IdScope(_finished("call_1"))
    call = scope.apply(ToolCall(id="call_1", name="upper", input={"text": "again"}))
    assert isinstance(call, ToolCall) and call.id == "call_1~2" and call.input == {"text": "again"}
    result = scope.apply(ToolResult(id="call_1", output="AGAIN"))
    assert isinstance(result, ToolResult) and result.id == "call_1~2"
    assert scope.apply(MessageStart(id="m1")) == MessageStart(id="m1")  # message ids untouched


def test_the_rename_skips_ids_already_taken() -> None:
    history = _finished("call_1") + _finished("call_1~2")
    call = IdScope(history).apply(ToolCall(id="call_1", name="upper"))
    assert isinstance(call, ToolCall) and call.id == "call_1~3"


def test_fresh_ids_and_open_calls_keep_their_id() -> None:
    history = [*_finished("call_1"), Message("assistant", [ToolCallBlock("call_2", "delete_file", {})])]
    scope = IdScope(history)
    assert scope.apply(ToolCall(id="call_9", name="x")) == ToolCall(id="call_9", name="x")
    # call_2 waits for its approval: its result (a resumed turn) belongs to it.
    assert scope.apply(ToolResult(id="call_2", output="done")) == ToolResult(id="call_2", output="done")


def test_interaction_requests_name_the_renamed_call() -> None:
    scope = IdScope(_finished("call_1"))
    scope.apply(ToolCall(id="call_1", name="delete_file"))
    request = InteractionRequest(
        "approve",
        "user_approval",
        {"toolCallId": "call_1", "toolCall": {"toolCallId": "call_1", "name": "delete_file"}, "x": 1},
    )
    out = scope.apply(request)
    assert isinstance(out, InteractionRequest)
    assert out.payload == {
        "toolCallId": "call_1~2",
        "toolCall": {"toolCallId": "call_1~2", "name": "delete_file"},
        "x": 1,
    }
    assert request.payload["toolCallId"] == "call_1"  # the agent's own object is not changed


def test_a_resumed_agent_names_its_renamed_open_call_by_its_own_id() -> None:
    """Warm: the same scope on the next turn. Cold: a new scope finds the open renamed call."""
    history = [*_finished("call_1"), Message("assistant", [ToolCallBlock("call_1~2", "delete_file", {})])]
    cold = IdScope(history)
    assert cold.apply(ToolCall(id="call_1", name="delete_file")).id == "call_1~2"  # type: ignore[union-attr]
    assert cold.apply(ToolResult(id="call_1", output="ok")).id == "call_1~2"  # type: ignore[union-attr]

    warm = IdScope(_finished("call_1"))
    warm.apply(ToolCall(id="call_1", name="delete_file"))
    warm.refresh(history)
    assert warm.apply(ToolResult(id="call_1", output="ok")).id == "call_1~2"  # type: ignore[union-attr]
    warm.refresh([*history, Message("tool", [ToolResultBlock("call_1~2", "delete_file", "ok")])])
    assert warm.apply(ToolCall(id="call_1", name="x")).id == "call_1~3"  # type: ignore[union-attr]


def test_a_call_id_reused_within_one_turn_after_its_result_is_an_error() -> None:
    scope = IdScope([])
    assert scope.apply(ToolCall(id="c", name="a", input={"n": 1})) is not None
    assert scope.apply(ToolCall(id="c", name="a", input={"n": 2})) is not None  # a refresh: fine
    assert scope.apply(ToolResult(id="c", output="one")) is not None
    error = scope.apply(ToolCall(id="c", name="b"))
    assert isinstance(error, ErrorEvent) and error.code == DUPLICATE_ID_CODE and "'c'" in error.message
    assert scope.apply(ToolResult(id="c", output="two")) is None  # the refused call's events


def test_base_id() -> None:
    assert base_id("call_1~2") == "call_1" and base_id("call_1") == "call_1"
    assert base_id("a~b") == "a~b" and base_id("~3") == "~3"


def test_decisions_under_the_agents_own_id_follow_its_newest_call() -> None:
    decision = {"approved": True, "interactionToken": "ap_x"}
    history = [
        *_finished("call_1"),
        Message("assistant", [ToolCallBlock("call_1~2", "delete_file", {"path": "a"})]),
    ]
    assert "call_1" not in scoped_decisions(history)  # the newest call_1 waits: no stale answer
    answered = [*history, Message("tool", [ToolResultBlock("call_1~2", "delete_file", decision)])]
    found = scoped_decisions(answered)
    assert found["call_1"] is found["call_1~2"] and found["call_1"].approved


def test_streamed_input_and_progress_name_the_renamed_call() -> None:
    scope = IdScope(_finished("call_1"))
    delta = scope.apply(ToolCallDelta(id="call_1", delta='{"te', name="upper"))
    assert isinstance(delta, ToolCallDelta) and delta.id == "call_1~2"
    call = scope.apply(ToolCall(id="call_1", name="upper", input={"text": "x"}))
    assert isinstance(call, ToolCall) and call.id == "call_1~2"
    progress = scope.apply(ToolProgress(id="call_1", output="half"))
    assert isinstance(progress, ToolProgress) and progress.id == "call_1~2"
    result = scope.apply(ToolResult(id="call_1", output="X"))
    assert isinstance(result, ToolResult) and result.id == "call_1~2"
