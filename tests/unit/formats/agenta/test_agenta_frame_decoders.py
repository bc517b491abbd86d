"""The per-class frame decoders read exactly what the field-by-field checked path reads: same
event, or the same InputError, for any frame."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from turnwire.errors import InputError
from turnwire.formats.agenta import decode_frames, frame_to_event
from turnwire.formats.agenta.frames import _checked_frame_to_event
from turnwire.model import EVENT_TYPES, UNSET, FileEvent, MessageDelta, ToolCall

_keys = st.sampled_from(
    ["id", "delta", "text", "name", "input", "rawInput", "raw_input", "output", "data", "isError",
     "is_error", "denied", "render", "kind", "payload", "mediaType", "media_type", "url", "message",
     "code", "detail", "stopReason", "stop_reason", "traceId", "trace_id", "transient", "total", "x"]
)  # fmt: skip
_values = st.one_of(st.none(), st.text(max_size=3), st.integers(), st.booleans(), st.just({"k": [1]}))
_frames = st.one_of(
    st.fixed_dictionaries(
        {
            "type": st.sampled_from([*EVENT_TYPES, "attachment_delivery"]),
            "data": st.dictionaries(_keys, _values),
        }
    ),
    st.fixed_dictionaries({"type": st.sampled_from(list(EVENT_TYPES))}),
    st.fixed_dictionaries({"type": st.sampled_from(list(EVENT_TYPES)), "data": _values}),
    st.fixed_dictionaries({"type": _values}),
    _values,
)


def _outcome(read: Any, frame: Any) -> Any:
    try:
        return read(frame)
    except InputError as exc:
        return ("error", exc.type, exc.loc, str(exc))


@settings(max_examples=600, deadline=None)
@given(_frames)
def test_frame_to_event_agrees_with_the_checked_path(frame: Any) -> None:
    assert _outcome(frame_to_event, frame) == _outcome(_checked_frame_to_event, frame)


@settings(max_examples=200, deadline=None)
@given(st.lists(_frames, max_size=8))
def test_decode_frames_agrees_with_reading_frame_by_frame(frames: list[Any]) -> None:
    expected: list[Any] = []
    for frame in frames:
        got = _outcome(_checked_frame_to_event, frame)
        if isinstance(got, tuple) and got[0] == "error":
            if got[1] == "unknown_frame":
                continue
            expected.append(got)
            break
        expected.append(got)
    actual: list[Any] = []
    try:
        actual.extend(decode_frames(frames))
    except InputError as exc:
        actual.append(("error", exc.type, exc.loc, str(exc)))
    assert actual == expected


def test_camel_case_wins_over_snake_case_and_defaults_fill_absent_fields() -> None:
    frame = {"type": "tool_call", "data": {"id": "c", "rawInput": {"a": 1}, "raw_input": {"b": 2}}}
    assert frame_to_event(frame) == ToolCall(id="c", raw_input={"a": 1})
    assert frame_to_event({"type": "tool_result", "data": {"id": "c"}}).output is UNSET
    assert frame_to_event({"type": "tool_result", "data": {"output": None}}).output is None
    assert frame_to_event({"type": "file", "data": {"url": "u", "media_type": "a/b"}}) == FileEvent(
        "u", "a/b"
    )


def test_a_str_subclass_is_still_read_as_a_string() -> None:
    class Name(str):
        pass

    event = frame_to_event({"type": "message_delta", "data": {"id": Name("m"), "delta": "x"}})
    assert event == MessageDelta("m", "x")


def test_a_non_string_required_field_is_named() -> None:
    try:
        frame_to_event({"type": "message_delta", "data": {"id": "m", "delta": 3}})
    except InputError as exc:
        assert exc.loc == ("data", "delta")
    else:
        raise AssertionError("no InputError")
