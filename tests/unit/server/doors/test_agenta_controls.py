"""The Agenta request controls (``flags`` and their headers) and the trim, checked against agenta
0.125.1's own rules (``sdk/agents/fold.py`` ``trim_to_trailing_unit``, ``sdk/decorators/routing.py``
``apply_invoke_prelude``), written out here as hand-made cases."""

from __future__ import annotations

from typing import Any

import pytest

from turnwire.server.doors.agenta.controls import (
    Controls,
    read_controls,
    stream_transport,
    trim_to_trailing_unit,
)
from turnwire.server.http.errors import RequestError
from turnwire.server.http.negotiation import NotAcceptable, Transport

A1 = {"role": "assistant", "content": "I will look"}
A2 = {"role": "assistant", "content": "Done."}
CALL = {"role": "tool", "content": "", "tool_call_id": "c1", "tool_name": "search", "input": {}}
RESULT = {"role": "tool", "content": "found", "tool_call_id": "c1", "is_error": None}
CALL2 = {"role": "tool", "content": "", "tool_call_id": "c2", "tool_name": "read", "input": {}}
RESULT2 = {"role": "tool", "content": "text", "tool_call_id": "c2", "is_error": None}
USER = {"role": "user", "content": "hi"}


@pytest.mark.parametrize(
    ("messages", "expected"),
    [
        ([], []),  # nothing: nothing
        ([A1], [A1]),
        ([A1, CALL, RESULT, A2], [A2]),  # a text tail: the last message only
        ([A1, CALL, RESULT], [A1, CALL, RESULT]),  # a tool tail with the message that opened it
        ([A1, CALL, RESULT, CALL2, RESULT2], [A1, CALL, RESULT, CALL2, RESULT2]),  # the whole run
        ([A2, A1, CALL, RESULT], [A1, CALL, RESULT]),  # one opener, not two
        ([CALL, RESULT], [CALL, RESULT]),  # a tool tail without an opener
        ([CALL], [CALL]),
        ([RESULT, A1], [A1]),
        ([USER, CALL], [USER, CALL]),  # the message before the run, whatever its role
    ],
)
def test_trim_keeps_the_trailing_unit_as_agenta_does(messages: list[Any], expected: list[Any]) -> None:
    assert trim_to_trailing_unit(messages) == expected


def test_body_flags_win_over_headers_even_when_null() -> None:
    last = {"x-ag-messages-transcript": "last", "x-ag-session-control": "force"}
    assert read_controls({}, last) == Controls(trim=True, force=True)
    assert read_controls({"flags": {"trim": False, "force": None}}, last) == Controls()
    assert read_controls({"flags": {}}, {"x-ag-messages-transcript": " FULL "}) == Controls()
    # Unrecognised header values are unset, as the reference's parsers say.
    assert (
        read_controls({}, {"x-ag-messages-transcript": "tail", "x-ag-session-control": "yes"}) == Controls()
    )
    flags = {"stream": True, "detached": True, "resolve": True, "other": 1}
    assert read_controls({"flags": flags}, {}) == Controls(stream=True, detached=True)
    assert read_controls({"flags": {"stream": None, "detached": None}}, {}) == Controls(stream=False)
    assert read_controls({"flags": None}, {}) == Controls()


@pytest.mark.parametrize(
    ("flags", "loc"),
    [
        ([], ["body", "flags"]),
        ({"stream": "yes"}, ["body", "flags", "stream"]),
        ({"trim": 1}, ["body", "flags", "trim"]),
        ({"detached": "true"}, ["body", "flags", "detached"]),
    ],
)
def test_flags_of_the_wrong_type_are_422s_naming_them(flags: Any, loc: list[str]) -> None:
    with pytest.raises(RequestError) as caught:
        read_controls({"flags": flags}, {})
    assert caught.value.status == 422
    assert list(caught.value.errors[0].loc) == loc


def test_the_stream_flag_against_accept() -> None:
    assert stream_transport(Transport.JSON, None, None) is Transport.JSON
    assert stream_transport(Transport.JSON, None, True) is Transport.NDJSON
    assert stream_transport(Transport.JSON, "*/*", True) is Transport.NDJSON
    assert stream_transport(Transport.SSE, "text/event-stream", True) is Transport.SSE
    assert stream_transport(Transport.SSE, "text/event-stream", None) is Transport.SSE
    assert stream_transport(Transport.JSON, "application/json", False) is Transport.JSON
    with pytest.raises(NotAcceptable):
        stream_transport(Transport.JSON, "application/json", True)
    with pytest.raises(NotAcceptable):
        stream_transport(Transport.SSE, "text/event-stream", False)
