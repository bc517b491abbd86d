"""Contract: stream == batch. The contents a reader accumulates from the update frames (reference
§5/§6: a ``start`` or ``full`` creates the message at its index, deltas append to it) are what
``render_messages(fold(events, full=True))`` makes of the same events, wherever both keep the same
information. The turn recorder stores exactly these accumulated contents.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from scenarios import SCENARIOS
from turnwire import model as m
from turnwire.fold import fold
from turnwire.formats.agentex import TaskUpdateEncoder, parse_messages, render_messages

AGREEING = [
    "plain_text",
    "streamed_text",
    "thoughts",
    "tool_call_and_result",
    "raw_input_vs_input",
    "orphan_result",
    "tool_error_null_output",
    "usage",
    "empty_stream",
]
"""Scenarios whose events both sides keep alike (see the tests below for where they part)."""


def accumulate(frames: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a reader of the stream ends with, by index in creation order."""
    by_index: dict[int, dict[str, Any]] = {}
    for frame in frames:
        index = frame["index"]
        if frame["type"] in ("start", "full"):
            by_index[index] = copy.deepcopy(frame["content"])
        elif frame["type"] == "delta":
            content, delta = by_index[index], frame["delta"]
            if delta["type"] == "text":
                content["content"] += delta["text_delta"]
            elif delta["type"] == "reasoning_content":
                parts = content["content"] or []
                while len(parts) <= delta["content_index"]:
                    parts.append("")
                parts[delta["content_index"]] += delta["content_delta"]
                content["content"] = parts
    return [by_index[i] for i in sorted(by_index)]


def stream_contents(events: list[m.Event]) -> list[dict[str, Any]]:
    enc = TaskUpdateEncoder("task")
    return accumulate([frame for event in events for frame in enc.encode(event)])


@pytest.mark.parametrize("name", AGREEING)
def test_accumulated_stream_equals_the_rendered_full_fold(name: str) -> None:
    events = SCENARIOS[name]
    assert stream_contents(events) == render_messages(fold(events, full=True).messages)


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_every_accumulated_content_parses_back_to_itself(name: str) -> None:
    contents = stream_contents(SCENARIOS[name])
    assert render_messages(parse_messages(contents)) == contents


def test_streamed_text_accumulates_to_the_whole_message() -> None:
    assert stream_contents(SCENARIOS["streamed_text"]) == [
        {
            "type": "text",
            "author": "agent",
            "style": "static",
            "format": "plain",
            "content": "Here are the release notes.",
            "attachments": None,
        }
    ]


def test_a_streamed_thought_accumulates_its_deltas_into_one_reasoning_part() -> None:
    reasoning = [c for c in stream_contents(SCENARIOS["thoughts"]) if c["type"] == "reasoning"]
    assert [c["content"] for c in reasoning] == [
        ["The user wants a summary."],
        ["Check the changelog first."],
    ]


def test_an_unopened_delta_opens_a_message_on_the_stream_where_fold_drops_it() -> None:
    # Agentex: the first delta of an index creates its message (reference §5); fold only appends
    # to a message its start opened.
    events: list[m.Event] = [m.MessageDelta("ghost", "kept on the stream"), m.MessageEnd("ghost")]
    assert [c["content"] for c in stream_contents(events)] == ["kept on the stream"]
    assert fold(events, full=True).messages == []


def test_interaction_requests_and_errors_are_stored_as_data_contents_fold_leaves_out() -> None:
    events: list[m.Event] = [
        m.InteractionRequest("tok", "user_approval", {"toolCallId": "c1"}),
        m.ErrorEvent("boom", "E"),
    ]
    assert [c["data"]["type"] for c in stream_contents(events)] == ["interaction_request", "error"]
    assert fold(events, full=True).messages == []
