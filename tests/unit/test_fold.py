"""fold(events) -> Turn: every row of the fold table (reference §5) and edge cases 13, 14, 16, 17."""

from __future__ import annotations

from scenarios import SCENARIOS
from turnwire.fold import fold
from turnwire.model import (
    UNSET,
    DataBlock,
    DataEvent,
    Done,
    ErrorEvent,
    FileEvent,
    ImageBlock,
    InteractionRequest,
    InteractionResponse,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
    Turn,
    Usage,
)


def text(t: str) -> Message:
    return Message("assistant", [TextBlock(t)])


def call(id, name, input) -> Message:
    return Message("tool", [ToolCallBlock(id, name, input)])


def test_message_event_appends_an_assistant_text_message():
    assert fold([MessageEvent("hi")]).messages == [text("hi")]


def test_lifecycle_deltas_are_joined_into_one_message():
    assert fold(SCENARIOS["streamed_text"]) == Turn([text("Here are the release notes.")], "end_turn")


def test_message_start_appends_at_its_position_even_before_other_messages():
    events = [MessageStart("m"), MessageEvent("middle"), MessageDelta("m", "first"), MessageEnd("m")]
    assert fold(events).messages == [text("first"), text("middle")]


def test_delta_for_an_unopened_id_is_dropped():
    assert fold([MessageDelta("ghost", "x"), MessageEvent("y")]).messages == [text("y")]


def test_delta_after_end_is_dropped_and_a_repeated_start_opens_a_new_message():
    assert fold(SCENARIOS["unopened_delta"]).messages == [text("kept"), text("second message, same id")]


def test_repeated_start_without_end_closes_the_first_message():
    events = [MessageStart("m"), MessageDelta("m", "a"), MessageStart("m"), MessageDelta("m", "b")]
    assert fold(events).messages == [text("a"), text("b")]


def test_unclosed_message_keeps_its_partial_text():
    assert fold([MessageStart("m"), MessageDelta("m", "part")]).messages == [text("part")]


def test_started_and_ended_message_without_deltas_is_empty_text():
    assert fold([MessageStart("m"), MessageEnd("m")]).messages == [text("")]


def test_tool_call_appends_a_tool_message():
    assert fold([ToolCall("c", "bash", {"cmd": "ls"})]).messages == [call("c", "bash", {"cmd": "ls"})]


def test_repeated_tool_call_refreshes_input_in_place_keeping_position_and_first_name():
    assert fold(SCENARIOS["tool_call_refresh"]) == Turn(
        [
            call("call_1", "Delete file", {"path": "/x", "force": True}),
            call("call_2", "read_file", {"path": "/y"}),
            Message("tool", [ToolResultBlock("call_2", None, "contents", False)]),
        ],
        "tool_use",
    )


def test_raw_input_wins_over_input_and_empty_raw_input_counts_and_id_less_calls_always_append():
    assert fold(SCENARIOS["raw_input_vs_input"]).messages == [
        call("call_1", "search", {"q": "raw", "limit": 5}),
        call("call_2", "search", {"q": "kept"}),
        call("call_3", "search", {}),
        call(None, "noid", {"a": 1}),
        call(None, "noid", {"a": 2}),
    ]


def test_refresh_without_any_arguments_sets_input_to_none():
    events = [ToolCall("c", "t", {"a": 1}), ToolCall("c", "t")]
    assert fold(events).messages == [call("c", "t", None)]


def test_tool_result_appends_a_tool_message_and_orphans_are_kept():
    assert fold(SCENARIOS["orphan_result"]).messages == [
        Message("tool", [ToolResultBlock("call_never_made", None, {"rows": 3}, None)]),
        Message("tool", [ToolResultBlock(None, None, UNSET, None)]),
        Message("tool", [ToolResultBlock("call_x", None, UNSET, None)]),
    ]


def test_tool_result_null_output_is_kept_as_none():
    (msg,) = fold([ToolResult("c", None, is_error=True)]).messages
    assert msg.content[0].output is None
    assert msg.content[0].is_error is True


def test_tool_result_keeps_its_name():
    (msg,) = fold([ToolResult("c", "x", name="bash")]).messages
    assert msg.content == [ToolResultBlock("c", "bash", "x", None)]


def test_last_done_wins_even_when_it_has_no_stop_reason():
    assert fold([Done("end_turn"), Done(None)]).stop_reason is None
    assert fold([Done(None), Done("max_tokens")]).stop_reason == "max_tokens"


def test_terminal_stop_reason_beats_the_done_event():
    assert fold([Done("end_turn")], stop_reason="cancelled").stop_reason == "cancelled"
    assert fold([Done("end_turn")], stop_reason=None).stop_reason == "end_turn"


def test_pending_interaction_is_the_last_request_when_paused():
    turn = fold(SCENARIOS["interaction_paused"])
    assert turn.stop_reason == "paused"
    assert turn.pending_interaction is not None
    assert turn.pending_interaction.id == "perm_1"


def test_no_pending_interaction_when_not_paused():
    events = [InteractionRequest("i", "user_input"), Done("end_turn")]
    assert fold(events).pending_interaction is None


def test_terminal_paused_makes_the_request_pending_even_without_done():
    events = [InteractionRequest("i", "user_input", {"q": 1})]
    assert fold(events, stop_reason="paused").pending_interaction == InteractionRequest(
        "i", "user_input", {"q": 1}
    )


def test_paused_without_any_request_has_no_pending_interaction():
    assert fold([Done("paused")]) == Turn([], "paused", None)


def test_empty_stream_is_an_empty_turn():
    assert fold(SCENARIOS["empty_stream"]) == Turn([], None, None)


def test_error_turn_without_done_keeps_partial_text_and_has_no_stop_reason():
    assert fold(SCENARIOS["error_without_done"]) == Turn([text("Partial ans")], None)


def test_thoughts_usage_files_data_errors_and_responses_produce_nothing():
    events = [
        Thought("t"),
        ThoughtStart("r"),
        ThoughtDelta("r", "x"),
        ThoughtEnd("r"),
        Usage(1, 2, 3),
        FileEvent("https://x/a.png", "image/png"),
        DataEvent("n", {"a": 1}),
        ErrorEvent("boom"),
        InteractionResponse("i", "user_input"),
    ]
    assert fold(events) == Turn()


def test_full_fold_keeps_thoughts_in_order_with_deltas_joined():
    assert fold(SCENARIOS["thoughts"], full=True).messages == [
        Message("assistant", [ReasoningBlock("The user wants a summary.")]),
        Message("assistant", [ReasoningBlock("Check the changelog first.")]),
        text("Summary: three fixes."),
    ]


def test_full_fold_keeps_non_transient_data_events():
    assert fold(SCENARIOS["data"], full=True).messages == [
        Message("assistant", [DataBlock({"url": "https://example.com/a", "title": "A"}, "citation")]),
        Message("assistant", [DataBlock([1, 2, 3], None)]),
        text("See the citation."),
    ]


def test_full_fold_keeps_files_as_image_or_resource_blocks_by_media_type():
    assert fold(SCENARIOS["file"], full=True).messages == [
        Message("assistant", [ImageBlock(uri="https://example.com/chart.png", mime_type="image/png")]),
        Message("assistant", [ResourceBlock(uri="data:text/csv;base64,YSxiCjEsMgo=", mime_type="text/csv")]),
        text("Here are the chart and the data."),
    ]


def test_full_fold_drops_thought_deltas_for_unopened_ids_and_keeps_unclosed_thoughts():
    events = [ThoughtDelta("ghost", "x"), ThoughtStart("r"), ThoughtDelta("r", "open")]
    assert fold(events, full=True).messages == [Message("assistant", [ReasoningBlock("open")])]


def test_fold_accepts_any_iterable_including_a_generator():
    assert fold(e for e in SCENARIOS["plain_text"]) == Turn([text("Hello! How can I help?")], "end_turn")
