"""Turns the Node conformance test replays through the real ``ai`` package.

Each scenario is a script of canonical events plus what a client must end up holding, written from
the protocol (reference/vercel-ui-stream.md, spec "Streamed frames: Vercel format"), not from
turnwire's output. ``approval`` marks scenarios a v5 client cannot take in the default setting.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from turnwire.formats.vercel import ClientVersion
from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionRequest,
    InteractionResponse,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    TextBlock,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    ToolResultBlock,
    Usage,
)


@dataclass
class Scenario:
    events: list[Event]
    expect: dict[str, Any]
    stop_reason: str | None = None
    fail: str | None = None  # the agent raises this after its events
    approval: bool = False
    message_id: str | None = "msg-1"
    history: dict[str, Any] | None = None  # the assistant UIMessage a continuation appends to
    history_v5: dict[str, Any] | None = None

    def run(self) -> Iterator[Event]:
        yield from self.events
        if self.fail is not None:
            raise RuntimeError(self.fail)


def _approval(call_id: str, approval_id: str, name: str = "delete_file") -> InteractionRequest:
    return InteractionRequest(
        approval_id,
        "user_approval",
        {
            "toolCallId": call_id,
            "toolCall": {"toolCallId": call_id, "resolvedName": name, "rawInput": {"path": "a"}},
        },
    )


def _paused_message(call_id: str, approved: bool) -> dict[str, Any]:
    part = {
        "type": "tool-delete_file",
        "toolCallId": call_id,
        "state": "approval-responded",
        "input": {"path": "a"},
        "approval": {"id": "ap-1", "approved": approved},
    }
    return {"id": "asst-1", "role": "assistant", "parts": [{"type": "step-start"}, part]}


def _v5_paused_message(call_id: str) -> dict[str, Any]:
    part = {
        "type": "tool-delete_file",
        "toolCallId": call_id,
        "state": "input-available",
        "input": {"path": "a"},
    }
    return {"id": "asst-1", "role": "assistant", "parts": [{"type": "step-start"}, part]}


SCENARIOS: dict[str, Scenario] = {
    "text": Scenario(
        [MessageStart("m1"), MessageDelta("m1", "Hello, "), MessageDelta("m1", "world"), MessageEnd("m1")],
        {"text": "Hello, world", "finishReason": "stop", "messageId": "msg-1", "steps": 1},
        stop_reason="end_turn",
    ),
    "one-shot-and-unopened-delta": Scenario(
        [MessageEvent("One. "), MessageDelta("late", "Two.")],
        {"text": "One. Two.", "finishReason": "stop"},
        stop_reason="END_TURN",
    ),
    "reasoning": Scenario(
        [ThoughtStart("r1"), ThoughtDelta("r1", "Think"), ThoughtDelta("r1", "ing."), ThoughtEnd("r1")],
        {"reasoning": "Thinking.", "text": "", "errors": [], "finishReason": "stop"},
        stop_reason="end_turn",
    ),
    "tool-call-and-result": Scenario(
        [
            ToolCall("c1", "get_weather", {}),
            ToolCall("c1", "GET_WEATHER", raw_input={"city": "Paris"}),
            ToolResult("c1", output="18C", data={"celsius": 18}),
            MessageEvent("It is 18C."),
        ],
        {
            "text": "It is 18C.",
            "steps": 2,
            "tools": {
                "c1": {
                    "state": "output-available",
                    "name": "get_weather",
                    "input": {"city": "Paris"},
                    "output": {"celsius": 18},
                }
            },
            "finishReason": "stop",
        },
        stop_reason="end_turn",
    ),
    "tool-error": Scenario(
        [ToolCall("c1", "bash", {"command": "false"}), ToolResult("c1", output="exit 1", is_error=True)],
        {"tools": {"c1": {"state": "output-error", "errorText": "exit 1"}}, "finishReason": "tool-calls"},
        stop_reason="tool_use",
    ),
    "approval-request": Scenario(
        [ToolCall("c1", "Delete file", {}), _approval("c1", "ap-1"), Done("paused")],
        {
            "tools": {"c1": {"state": "approval-requested", "approvalId": "ap-1", "input": {"path": "a"}}},
            "toolsV5": {"c1": {"state": "input-available", "input": {"path": "a"}}},
            "dataTypesV5": ["data-interaction"],
            "finishReason": "other",
        },
        approval=True,
    ),
    "approved-continuation": Scenario(
        [ToolResult("c9", output="deleted"), MessageEvent("Done.")],
        {
            "text": "Done.",
            "messageId": "asst-1",
            "tools": {"c9": {"state": "output-available", "output": "deleted", "approved": True}},
            "toolsV5": {"c9": {"state": "output-available", "output": "deleted"}},
            "finishReason": "stop",
        },
        stop_reason="end_turn",
        approval=True,
        message_id="asst-1",
        history=_paused_message("c9", True),
        history_v5=_v5_paused_message("c9"),
    ),
    "denied-tool": Scenario(
        [ToolResult("c9", output="denied by user", is_error=True, denied=True), MessageEvent("Not deleted.")],
        {
            "text": "Not deleted.",
            "tools": {"c9": {"state": "output-denied", "approved": False}},
            "toolsV5": {"c9": {"state": "output-error", "errorText": "denied by user"}},
            "finishReason": "stop",
        },
        stop_reason="end_turn",
        approval=True,
        message_id="asst-1",
        history=_paused_message("c9", False),
        history_v5=_v5_paused_message("c9"),
    ),
    "no-output": Scenario(
        [], {"errors": ["The agent produced no output."], "finishReason": "stop"}, "end_turn"
    ),
    "cancelled-without-output": Scenario(
        [], {"errors": [], "finishReason": "other", "empty": True}, stop_reason="cancelled"
    ),
    "agent-exception-mid-text": Scenario(
        [MessageStart("m1"), MessageDelta("m1", "Hel")],
        {"text": "Hel", "errors": ["Agent run failed: provider exploded"], "finishReason": "error"},
        fail="provider exploded",
    ),
    "agent-error-event": Scenario(
        [MessageEvent("partial"), ErrorEvent("rate limited", code="rate_limited")],
        {"text": "partial", "errors": ["rate limited"], "dataTypes": ["data-agent-error"]},
    ),
    "usage-and-trace": Scenario(
        [
            MessageEvent("ok"),
            Usage(input=1, output=2),
            Usage(input=3, output=5, total=8),
            Done("end_turn", "tr-1"),
        ],
        {
            "text": "ok",
            "metadata": {
                "usage": {"input": 3, "output": 5, "total": 8},
                "traceId": "tr-1",
                "sessionId": "s-1",
            },
            "finishReason": "stop",
        },
    ),
    "multi-step": Scenario(
        [
            MessageEvent("Let me look."),
            ToolCall("c1", "search", {"q": "a"}),
            ToolCall("c2", "search", {"q": "b"}),
            ToolResult("c1", output="A"),
            ToolResult("c2", output="B"),
            ThoughtStart("r1"),
            ThoughtDelta("r1", "Both found."),
            MessageStart("m2"),
            MessageDelta("m2", "Found A and B."),
            ToolCall("c3", "summarise", None),
            ToolResult("c3", output=None),
            MessageEvent(" Bye."),
        ],
        {
            "text": "Let me look.Found A and B. Bye.",
            "reasoning": "Both found.",
            "steps": 3,
            "tools": {
                "c1": {"state": "output-available", "output": "A"},
                "c2": {"state": "output-available", "output": "B"},
                "c3": {"state": "output-available", "output": None, "input": {}},
            },
            "finishReason": "stop",
        },
        stop_reason="stop_sequence",
    ),
    "unicode": Scenario(
        [MessageEvent("héllo 👋 世界\nsecond line\r\nthird: data: [DONE]\n\n")],
        {"text": "héllo 👋 世界\nsecond line\r\nthird: data: [DONE]\n\n", "finishReason": "length"},
        stop_reason="max_tokens",
    ),
    "data-file-and-interactions": Scenario(
        [
            DataEvent("progress", {"pct": 50}),
            DataEvent("toast", {"text": "hi"}, transient=True),
            FileEvent("https://example.com/a.png", "image/png"),
            FileEvent("", "image/png"),
            InteractionRequest("in-1", "user_input", {"question": "Which?"}),
            InteractionRequest("x-1", "custom_kind", {"a": 1}),
            ToolResult("ghost", output="orphan"),
            ToolCall(None, "nameless"),
        ],
        {
            "files": [{"url": "https://example.com/a.png", "mediaType": "image/png"}],
            "dataTypes": ["data-progress", "data-input-request", "data-interaction"],
            "tools": {},
            "finishReason": "other",
        },
        stop_reason="whatever_new_reason",
    ),
    "client-tool": Scenario(
        [
            InteractionRequest(
                "ct-1",
                "client_tool",
                {
                    "toolCallId": "c5",
                    "toolName": "pick_color",
                    "input": {"n": 1},
                    "render": {"kind": "picker"},
                },
            )
        ],
        {
            "tools": {"c5": {"state": "input-available", "name": "pick_color", "input": {"n": 1}}},
            "dataTypes": ["data-render"],
            "finishReason": "other",
        },
        stop_reason="paused",
    ),
    # The events of the newer wires (AI SDK 7 chunks): every lane's client takes the stream; a v7
    # setting gets ``custom`` as a part, the others a transient ``data-custom`` (no part).
    "extended-events": Scenario(
        [
            AgentStart("researcher"),
            StepStart("search"),
            StateSnapshot({"query": "tides"}),
            ToolCallDelta("c1", "", name="search"),
            ToolCallDelta("c1", '{"q": "ti'),
            ToolCallDelta("c1", 'des"}'),
            ToolCall("c1", "search", {"q": "tides"}),
            ToolProgress("c1", {"found": 1}),
            ToolResult("c1", output="2 hits", data={"hits": 2}),
            StepEnd("search"),
            StateDelta([{"op": "add", "path": "/hits", "value": 2}]),
            SourceUrl("src-1", "https://example.com/tides", title="Tides"),
            SourceDocument("src-2", "application/pdf", "Tide tables", filename="tides.pdf"),
            CustomEvent("acme.progress", {"pct": 100}),
            MessageEvent("Tides follow the moon."),
            AgentEnd("researcher"),
        ],
        {
            "text": "Tides follow the moon.",
            "steps": 2,
            "tools": {
                "c1": {
                    "state": "output-available",
                    "name": "search",
                    "input": {"q": "tides"},
                    "output": {"hits": 2},
                }
            },
            "sources": [
                {
                    "type": "source-url",
                    "sourceId": "src-1",
                    "url": "https://example.com/tides",
                    "title": "Tides",
                },
                {
                    "type": "source-document",
                    "sourceId": "src-2",
                    "mediaType": "application/pdf",
                    "title": "Tide tables",
                    "filename": "tides.pdf",
                },
            ],
            "customV7": [{"kind": "acme.progress", "providerMetadata": {"turnwire": {"data": {"pct": 100}}}}],
            "dataTypes": [],
            "finishReason": "stop",
        },
        stop_reason="end_turn",
    ),
    # AI SDK 7's newer chunks, on the 7 setting only: a file from the reasoning (``reasoning-file``),
    # a decision the agent made without the user (an automatic request answered at once) and the
    # signed token as the approval request's ``signature``. Every other lane reads a plain file and
    # no decision, so its strict schema never meets a key it does not know (6 also gets the title).
    "ai7-reasoning-file-and-decisions": Scenario(
        [
            ThoughtStart("r1"),
            ThoughtDelta("r1", "Sketching."),
            FileEvent("https://example.com/sketch.png", "image/png", reasoning=True),
            ThoughtEnd("r1"),
            ToolCall("c1", "lookup", {"q": "a"}),
            InteractionResponse("auto-1", "user_approval", {"toolCallId": "c1", "approved": True}),
            ToolResult("c1", output="found"),
            MessageEvent("Now the gated one."),
            ToolCall("c2", "delete_file", {"path": "a"}),
            InteractionRequest(
                "ap-2",
                "user_approval",
                {
                    "toolCallId": "c2",
                    "toolCall": {
                        "resolvedName": "delete_file",
                        "title": "Delete a file",
                        "rawInput": {"path": "a"},
                    },
                },
            ),
            Done("paused"),
        ],
        {
            "text": "Now the gated one.",
            "reasoning": "Sketching.",
            "tools": {
                "c1": {"state": "output-available", "output": "found"},
                "c2": {"state": "approval-requested", "approvalId": "ap-2"},
            },
            "toolsV7": {
                "c1": {
                    "state": "output-available",
                    "output": "found",
                    "approval": {"id": "auto-1", "isAutomatic": True, "approved": True},
                },
                "c2": {
                    "state": "approval-requested",
                    "approval": {"id": "ap-2", "signature": "ap-2"},
                    "title": "Delete a file",  # the request's known title (6 and 7; 5's schema has none)
                },
            },
            "toolsV5": {
                "c1": {"state": "output-available", "output": "found"},
                "c2": {"state": "input-available"},
            },
            "partTypes": ["reasoning", "file", "tool-lookup", "text", "tool-delete_file"],
            "partTypesV7": ["reasoning", "reasoning-file", "tool-lookup", "text", "tool-delete_file"],
            "partTypesV5": [
                *("reasoning", "file", "tool-lookup", "text", "tool-delete_file"),
                "data-interaction",
            ],
            "finishReason": "other",
        },
        approval=True,
    ),
}

# v5 knows "unknown" and the encoder sends it there for unmapped reasons.
SCENARIOS["data-file-and-interactions"].expect["finishReasonV5"] = "unknown"

HISTORIES: dict[str, tuple[list[Message], dict[str, Any]]] = {
    "every-tool-state": (
        [
            Message("system", [TextBlock("Be brief.")]),
            Message("user", [TextBlock("Do things.")]),
            Message(
                "assistant",
                [
                    TextBlock("On it."),
                    ToolCallBlock("t-input", "read_file", {"path": "a"}),
                    ToolCallBlock("t-ok", "read_file", {"path": "b"}),
                    ToolCallBlock("t-obj", "stat", {"path": "b"}),
                    ToolCallBlock("t-null", "touch", None),
                    ToolCallBlock("t-err", "bash", {"command": "false"}),
                    ToolCallBlock("t-yes", "Delete file", {"path": "c"}),
                    ToolCallBlock("t-no", "delete_file", {"path": "d"}),
                    ToolCallBlock("t-ran", "delete_file", {"path": "e"}),
                ],
            ),
            Message("tool", [ToolResultBlock("t-ok", output="contents", is_error=False)]),
            Message("tool", [ToolResultBlock("t-obj", output={"size": 3, "tags": [1, None]})]),
            Message("tool", [ToolResultBlock("t-null", output=None)]),
            Message("tool", [ToolResultBlock("t-err", output={"code": 1}, is_error=True)]),
            Message(
                "tool", [ToolResultBlock("t-yes", output={"approved": True, "interactionToken": "ap-yes"})]
            ),
            Message(
                "tool",
                [
                    ToolResultBlock(
                        "t-no", output={"approved": False, "interactionToken": "ap-no", "reason": "no"}
                    )
                ],
            ),
            Message(
                "tool", [ToolResultBlock("t-ran", output={"approved": True, "interactionToken": "ap-ran"})]
            ),
            Message("tool", [ToolResultBlock("t-ran", output="gone")]),
            Message("user", []),
        ],
        {
            "roles": ["system", "user", "assistant", "user"],
            "tools": {
                "t-input": {"state": "input-available", "input": {"path": "a"}},
                "t-ok": {"state": "output-available", "output": "contents"},
                "t-obj": {"state": "output-available", "output": {"size": 3, "tags": [1, None]}},
                "t-null": {"state": "output-available", "output": None, "input": {}},
                "t-err": {"state": "output-error", "errorText": '{"code":1}'},
                "t-yes": {
                    "state": "approval-responded",
                    "type": "dynamic-tool",
                    "toolName": "Delete file",
                    "approved": True,
                },
                "t-no": {"state": "output-denied", "approved": False},
                "t-ran": {"state": "output-available", "output": "gone", "approved": True},
            },
        },
    ),
    "orphan-result-and-tool-first": (
        [
            Message("tool", [ToolResultBlock("lonely", name="lookup", output="x")]),
            Message("developer", [TextBlock("dev note")]),
            Message("function", [ToolCallBlock("f1", "calc", {"x": 1})]),
        ],
        {
            "roles": ["assistant", "system", "assistant"],
            "tools": {"lonely": {"state": "output-available", "output": "x", "type": "tool-lookup"}},
        },
    ),
}

# Histories rendered with options, each checked by the client package it is written for
# ("package" in the expectations; ai 7 when absent).
_PENDING = [
    Message("user", [TextBlock("Delete a and b.")]),
    Message("tool", [ToolCallBlock("c-a", "delete_file", {"path": "a"})]),
    Message("tool", [ToolCallBlock("c-b", "delete_file", {"path": "b"})]),
]
_PENDING_TOOLS = {
    "c-a": {"state": "approval-requested", "approval": {"id": "ap_a"}},
    "c-b": {"state": "approval-requested", "approval": {"id": "ap_b"}},
}
HISTORIES["pending-approvals"] = (_PENDING, {"roles": ["user", "assistant"], "tools": _PENDING_TOOLS})
HISTORIES["pending-approvals-ai6"] = (
    _PENDING,
    {"roles": ["user", "assistant"], "tools": _PENDING_TOOLS, "package": "ai-v6"},
)
HISTORIES["pending-approvals-ai5"] = (
    _PENDING,
    {
        "roles": ["user", "assistant"],
        "tools": {"c-a": {"state": "input-available"}, "c-b": {"state": "input-available"}},
        "package": "ai-v5",
    },
)
HISTORIES["every-tool-state-ai5"] = (
    HISTORIES["every-tool-state"][0],
    {
        "roles": ["system", "user", "assistant", "user"],
        "tools": {
            "t-input": {"state": "input-available"},
            "t-err": {"state": "output-error", "errorText": '{"code":1}'},
            "t-yes": {"state": "input-available", "type": "dynamic-tool", "toolName": "Delete file"},
            "t-no": {"state": "output-error", "errorText": "no"},
            "t-ran": {"state": "output-available", "output": "gone"},
        },
        "package": "ai-v5",
    },
)

_GATES = {"c-a": "ap_a", "c-b": "ap_b"}
HISTORY_RENDERING: dict[str, dict[str, Any]] = {
    "pending-approvals": {"approvals": _GATES},
    "pending-approvals-ai6": {"approvals": _GATES},
    "pending-approvals-ai5": {"approvals": _GATES, "client_version": ClientVersion.V5},
    "every-tool-state-ai5": {"client_version": ClientVersion.V5},
}
"""``render_messages`` options per history (none when absent)."""
