"""AG-UI events applied to a message list as ``@ag-ui/client`` applies them (``assembled``)."""

from __future__ import annotations

from turnwire.formats.agui.assembled import assembled


def test_calls_results_activities_and_run_input_land_where_the_client_puts_them() -> None:
    held = [{"id": "u1", "role": "user", "content": "hi"}]
    events = [
        {
            "type": "RUN_STARTED",
            "threadId": "t",
            "runId": "r",
            "input": {
                "threadId": "t",
                "runId": "r",
                "messages": [held[0], {"id": "resume:x", "role": "user", "content": "blue"}],
            },
        },
        {"type": "REASONING_MESSAGE_START", "messageId": "m", "role": "reasoning"},
        {"type": "REASONING_MESSAGE_CONTENT", "messageId": "m", "delta": "hm"},
        # parent held but not an assistant message: a new one under the call's id
        {"type": "TOOL_CALL_START", "toolCallId": "c1", "toolCallName": "f", "parentMessageId": "m"},
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
        # parent not held: a new assistant message under that id
        {"type": "TOOL_CALL_START", "toolCallId": "c2", "toolCallName": "g", "parentMessageId": "m-2"},
        {"type": "TEXT_MESSAGE_START", "messageId": "m-3", "role": "assistant"},
        {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m-3", "delta": "so"},
        {"type": "TOOL_CALL_RESULT", "messageId": "m-4", "toolCallId": "c1", "content": "r1", "role": "tool"},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "m-5", "activityType": "card", "content": {"a": 1}},
        {"type": "ACTIVITY_SNAPSHOT", "messageId": "m-5", "activityType": "card", "content": {"a": 2}},
    ]
    out = assembled(events, held)
    assert [(m["id"], m["role"]) for m in out] == [
        ("u1", "user"),
        ("resume:x", "user"),
        ("m", "reasoning"),
        ("c1", "assistant"),
        ("m-4", "tool"),
        ("m-2", "assistant"),
        ("m-3", "assistant"),
        ("m-5", "activity"),
    ]
    assert out[3]["toolCalls"][0]["function"] == {"name": "f", "arguments": "{}"}
    assert out[-1]["content"] == {"a": 2}
    assert held == [{"id": "u1", "role": "user", "content": "hi"}]  # the input list is not changed
