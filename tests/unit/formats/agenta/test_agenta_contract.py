"""Contract: batch == fold(stream). Folding the events directly and folding what a client reads back
from the NDJSON bytes of the Agenta frames give the same turn and the same batch outputs."""

from __future__ import annotations

import orjson
import pytest

from scenarios import SCENARIOS
from turnwire.fold import fold
from turnwire.formats.agenta import decode_frames, encode_events, frame_to_event, render_outputs
from turnwire.framing import ndjson_frame


def ndjson_round_trip(events):
    body = b"".join(ndjson_frame(f) for f in encode_events(events))
    return [frame_to_event(orjson.loads(line)) for line in body.splitlines()]


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_fold_of_the_decoded_stream_equals_fold_of_the_events(name):
    events = SCENARIOS[name]
    decoded = ndjson_round_trip(events)
    assert decoded == events
    assert fold(decoded) == fold(events)
    assert fold(decoded, full=True) == fold(events, full=True)
    assert render_outputs(fold(decoded)) == render_outputs(fold(events))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_full_fold_renders_the_same_batch_as_the_plain_fold(name):
    events = SCENARIOS[name]
    assert render_outputs(fold(events, full=True)) == render_outputs(fold(events))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_terminal_stop_reason_survives_the_round_trip(name):
    decoded = list(decode_frames(orjson.loads(line) for line in _lines(SCENARIOS[name])))
    assert render_outputs(fold(decoded, stop_reason="cancelled")) == render_outputs(
        fold(SCENARIOS[name], stop_reason="cancelled")
    )


def _lines(events):
    return b"".join(ndjson_frame(f) for f in encode_events(events)).splitlines()


def test_paused_scenario_batch_outputs_are_exact():
    assert render_outputs(fold(SCENARIOS["interaction_paused"])) == {
        "messages": [
            {"role": "assistant", "content": "I will delete it"},
            {
                "role": "tool",
                "content": "",
                "tool_call_id": "call_1",
                "tool_name": "Delete file",
                "input": {},
            },
        ],
        "stop_reason": "paused",
        "pending_interaction": {
            "type": "interaction_request",
            "id": "perm_1",
            "kind": "user_approval",
            "payload": {
                "toolCallId": "call_1",
                "availableReplies": ["once", "always", "reject"],
                "toolCall": {
                    "toolCallId": "call_1",
                    "title": "Delete file",
                    "resolvedName": "delete_file",
                    "rawInput": {"path": "/x"},
                },
            },
            "tool": "delete_file",
        },
    }


def test_tool_scenario_batch_outputs_are_exact():
    assert render_outputs(fold(SCENARIOS["tool_call_and_result"])) == {
        "messages": [
            {"role": "assistant", "content": "Let me look."},
            {
                "role": "tool",
                "content": "",
                "tool_call_id": "call_1",
                "tool_name": "bash",
                "input": {"command": "ls docs"},
            },
            {"role": "tool", "content": "index.md\n", "tool_call_id": "call_1", "is_error": False},
            {"role": "assistant", "content": "There is one file: index.md."},
        ],
        "stop_reason": "end_turn",
    }


def test_empty_stream_batch_is_an_empty_message_list():
    assert render_outputs(fold(SCENARIOS["empty_stream"])) == {"messages": []}
