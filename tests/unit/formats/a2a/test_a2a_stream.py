"""Canonical events → A2A stream responses: every frame parses as the a2a-sdk's ``StreamResponse``;
text streams as artifact chunks (append / lastChunk), tools as working status updates, the stop
reason picks the final state, an approval pauses with its request as a data part."""

from __future__ import annotations

from typing import Any

import pytest
from a2a.types import a2a_pb2
from google.protobuf import json_format

from turnwire.formats import encode_stream
from turnwire.formats.a2a import INTERACTION_MEDIA_TYPE, TaskStreamEncoder, render_task, task_state
from turnwire.formats.a2a.legacy import stream_response_to_v03
from turnwire.model import (
    Done,
    ErrorEvent,
    InteractionKind,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    TextBlock,
    ToolCall,
    ToolResult,
)

TASK, CTX = "ctx~k1", "ctx"


def frames(events: list[Any], **kw: Any) -> list[dict[str, Any]]:
    out = list(encode_stream(events, TaskStreamEncoder(TASK, CTX, turn_id="t1", **kw)))
    for frame in out:
        json_format.ParseDict(frame, a2a_pb2.StreamResponse())  # strict: what the sdk client reads
    return out


def test_text_streams_as_chunks_of_one_artifact_the_last_marked() -> None:
    out = frames(
        [
            MessageStart("m"),
            MessageDelta("m", "Hel"),
            MessageDelta("m", "lo"),
            MessageEnd("m"),
            Done("end_turn"),
        ]
    )
    assert out[0]["task"]["status"]["state"] == "TASK_STATE_SUBMITTED"
    assert out[1]["statusUpdate"]["status"]["state"] == "TASK_STATE_WORKING"
    chunks = [f["artifactUpdate"] for f in out if "artifactUpdate" in f]
    assert [(c["artifact"]["parts"][0]["text"], c["append"], c["lastChunk"]) for c in chunks] == [
        ("Hel", False, False),
        ("lo", True, True),
    ]
    assert {c["artifact"]["artifactId"] for c in chunks} == {"text-1"}
    assert out[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_COMPLETED"
    assert out[-1]["statusUpdate"]["metadata"]["stopReason"] == "end_turn"


def test_each_text_message_is_its_own_artifact_counted_after_the_tasks_earlier_ones() -> None:
    out = frames([MessageEvent("1"), MessageEvent("2")], texts=3)
    ids = [f["artifactUpdate"]["artifact"]["artifactId"] for f in out if "artifactUpdate" in f]
    assert ids == ["text-4", "text-5"]


def test_tool_calls_and_results_are_working_updates_with_data_parts() -> None:
    out = frames(
        [ToolCall("c1", "get_weather", {"city": "Paris"}), ToolResult("c1", {"t": 21}, name="get_weather")]
    )
    updates = [f["statusUpdate"] for f in out[2:-1]]
    assert [u["status"]["state"] for u in updates] == ["TASK_STATE_WORKING"] * 2
    call, result = (u["status"]["message"]["parts"][0]["data"] for u in updates)
    assert call == {"toolCallId": "c1", "toolName": "get_weather", "input": {"city": "Paris"}}
    assert result == {"toolCallId": "c1", "toolName": "get_weather", "output": {"t": 21}}


def test_an_approval_pauses_input_required_with_the_request_and_its_token() -> None:
    payload = {"toolCallId": "c1", "toolName": "delete_file", "input": {"path": "x"}}
    out = frames(
        [
            ToolCall("c1", "delete_file", {"path": "x"}),
            InteractionRequest("ap_tok", InteractionKind.USER_APPROVAL, payload),
            Done("paused"),
        ]
    )
    final = out[-1]["statusUpdate"]["status"]
    assert final["state"] == "TASK_STATE_INPUT_REQUIRED"
    (part,) = final["message"]["parts"]
    assert part["mediaType"] == INTERACTION_MEDIA_TYPE
    assert part["data"] == {
        "kind": "user_approval",
        "interactionToken": "ap_tok",
        "toolCallId": "c1",
        "toolName": "delete_file",
        "input": {"path": "x"},
    }


def test_a_failing_run_ends_failed_with_its_message() -> None:
    def events():
        yield MessageEvent("about to fail")
        raise RuntimeError("boom")

    out = list(encode_stream(events(), TaskStreamEncoder(TASK, CTX)))
    final = out[-1]["statusUpdate"]["status"]
    assert final["state"] == "TASK_STATE_FAILED" and final["message"]["parts"][0]["text"]


def test_an_agent_error_event_fails_the_task() -> None:
    out = frames([ErrorEvent("model down"), Done("error")])
    assert out[-1]["statusUpdate"]["status"]["state"] == "TASK_STATE_FAILED"
    assert out[-1]["statusUpdate"]["status"]["message"]["parts"] == [{"text": "model down"}]


@pytest.mark.parametrize(
    ("stop", "state"),
    [
        ("end_turn", "TASK_STATE_COMPLETED"),
        ("max_tokens", "TASK_STATE_COMPLETED"),
        ("refusal", "TASK_STATE_REJECTED"),
        ("paused", "TASK_STATE_INPUT_REQUIRED"),
        ("cancelled", "TASK_STATE_CANCELED"),
        ("error", "TASK_STATE_FAILED"),
        (None, "TASK_STATE_COMPLETED"),
        ("something_new", "TASK_STATE_COMPLETED"),
    ],
)
def test_the_stop_reason_table(stop: str | None, state: str) -> None:
    assert task_state(stop) == state


def test_v03_events_carry_kind_and_final() -> None:
    out = [stream_response_to_v03(f) for f in frames([MessageEvent("hi"), Done("end_turn")])]
    assert [e["kind"] for e in out] == ["task", "status-update", "artifact-update", "status-update"]
    assert out[-1]["status"]["state"] == "completed" and out[-1]["final"] is True
    assert out[1]["final"] is False
    assert out[2]["artifact"]["parts"] == [{"kind": "text", "text": "hi"}]


def test_a_rendered_task_parses_and_trims_its_history() -> None:
    msgs = [Message("user", [TextBlock("q")], id="u"), Message("assistant", [TextBlock("a")], id="a")]
    task = render_task(TASK, CTX, msgs, "TASK_STATE_COMPLETED", history_length=1)
    json_format.ParseDict(task, a2a_pb2.Task())
    assert [m["messageId"] for m in task["history"]] == ["a"]
    assert task["artifacts"] == [{"artifactId": "text-1", "name": "answer", "parts": [{"text": "a"}]}]
    assert "history" not in render_task(TASK, CTX, msgs, "TASK_STATE_COMPLETED", history_length=0)
