"""Named event streams every format's tests can replay: ``SCENARIOS[name] -> list[Event]``.

Plain data only. Each stream is what an agent could yield for one turn; together they cover the
fold table (text, lifecycle text, thoughts, tools, refreshes, orphans, pauses, errors, extras).
"""

from __future__ import annotations

from turnwire.model import (
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolResult,
    Usage,
)

SCENARIOS: dict[str, list[Event]] = {
    "plain_text": [
        MessageEvent("Hello! How can I help?"),
        Done("end_turn", trace_id="0af7651916cd43dd8448eb211c80319c"),
    ],
    "streamed_text": [
        MessageStart("m1"),
        MessageDelta("m1", "Here are "),
        MessageDelta("m1", "the release "),
        MessageDelta("m1", "notes."),
        MessageEnd("m1"),
        Done("end_turn"),
    ],
    "thoughts": [
        Thought("The user wants a summary."),
        ThoughtStart("r1"),
        ThoughtDelta("r1", "Check the "),
        ThoughtDelta("r1", "changelog first."),
        ThoughtEnd("r1"),
        MessageEvent("Summary: three fixes."),
        Done("end_turn"),
    ],
    "tool_call_and_result": [
        MessageEvent("Let me look."),
        ToolCall("call_1", "bash", {"command": "ls docs"}),
        ToolResult("call_1", "index.md\n", is_error=False),
        MessageStart("m2"),
        MessageDelta("m2", "There is one file: index.md."),
        MessageEnd("m2"),
        Done("end_turn"),
    ],
    "tool_call_refresh": [
        ToolCall("call_1", "Delete file", {}),
        ToolCall("call_1", "delete_file", {"path": "/x"}),
        ToolCall("call_2", "read_file", {"path": "/y"}),
        ToolCall("call_1", None, {"path": "/x", "force": True}),
        ToolResult("call_2", "contents", is_error=False),
        Done("tool_use"),
    ],
    "raw_input_vs_input": [
        ToolCall("call_1", "search", input={"q": "parsed"}, raw_input={"q": "raw", "limit": 5}),
        ToolCall("call_2", "search", input={"q": "kept"}, raw_input=None),
        ToolCall("call_3", "search", input={"q": "ignored"}, raw_input={}),
        ToolCall(None, "noid", {"a": 1}),
        ToolCall(None, "noid", {"a": 2}),
        Done("end_turn"),
    ],
    "orphan_result": [
        ToolResult("call_never_made", {"rows": 3}, data={"rows": 3}),
        ToolResult(None),
        ToolResult("call_x"),
        Done("end_turn"),
    ],
    "unopened_delta": [
        MessageDelta("ghost", "dropped"),
        MessageStart("m1"),
        MessageDelta("m1", "kept"),
        MessageEnd("m1"),
        MessageDelta("m1", " after end: dropped"),
        MessageStart("m1"),
        MessageDelta("m1", "second message, same id"),
        Done("end_turn"),
    ],
    "interaction_paused": [
        MessageEvent("I will delete it"),
        ToolCall("call_1", "Delete file", {}),
        InteractionRequest(
            "perm_0",
            "user_input",
            {"prompt": "Which file?"},
        ),
        InteractionRequest(
            "perm_1",
            "user_approval",
            {
                "toolCallId": "call_1",
                "availableReplies": ["once", "always", "reject"],
                "toolCall": {
                    "toolCallId": "call_1",
                    "title": "Delete file",
                    "resolvedName": "delete_file",
                    "rawInput": {"path": "/x"},
                },
            },
        ),
        InteractionResponse("perm_0", "user_input", {"answer": "/x"}),
        Done(None),
        Done("paused"),
    ],
    "error_without_done": [
        MessageStart("m1"),
        MessageDelta("m1", "Partial ans"),
        ErrorEvent("provider exploded", code="runner_error", detail={"code": "rate_limited"}),
    ],
    "empty_stream": [],
    "usage": [
        MessageEvent("Done."),
        Usage(input=120, output=8, total=128, cost=0.00042),
        Usage(input=130, output=9, total=139),
        Done("end_turn"),
    ],
    "data": [
        DataEvent("progress", {"step": 1, "of": 3}, transient=True),
        DataEvent("citation", {"url": "https://example.com/a", "title": "A"}),
        DataEvent(None, [1, 2, 3]),
        MessageEvent("See the citation."),
        Done("end_turn"),
    ],
    "file": [
        FileEvent("https://example.com/chart.png", "image/png"),
        FileEvent("data:text/csv;base64,YSxiCjEsMgo=", "text/csv"),
        MessageEvent("Here are the chart and the data."),
        Done("end_turn"),
    ],
    "tool_error_null_output": [
        ToolCall("call_1", "fetch", {"url": "https://example.com"}),
        ToolResult("call_1", None, is_error=True),
        ToolResult("call_1", "denied by user", is_error=True, denied=True),
        Done("end_turn"),
    ],
}
