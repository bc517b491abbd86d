"""The Vercel answer tells an approval's tool call once, as Agenta does.

turnwire's Vercel stream sends a gated call's ``tool-input-available`` again right before its
``tool-approval-request`` (with the approval's resolved tool name). ``Client(format="vercel")``
must still show one ``tool_call`` event per call — the same events ``Client(format="agenta")``
shows for the same turn on the same server.
"""

from __future__ import annotations

import itertools

import pytest

from turnwire.client import Client
from turnwire.model import ToolCall

_ids = itertools.count()


def _turn_events(url: str, wire: str, text: str, *, approve: bool) -> tuple[list[str], list[ToolCall]]:
    with Client(url, format=wire) as client:
        turn = client.session(f"vercel-calls-{wire}-{next(_ids)}").send(text)
        events = list(turn)
        if approve:
            events += list(turn.approve())
    return [type(e).__name__ for e in events], [e for e in events if isinstance(e, ToolCall)]


@pytest.mark.parametrize(
    ("text", "approve"),
    [("delete notes.txt", False), ("delete notes.txt", True), ("delete a.txt and b.txt", False)],
)
def test_an_approval_shows_its_tool_call_once_on_both_formats(
    server_url: str, text: str, approve: bool
) -> None:
    agenta, agenta_calls = _turn_events(server_url, "agenta", text, approve=approve)
    vercel, vercel_calls = _turn_events(server_url, "vercel", text, approve=approve)
    assert vercel == agenta
    assert [(c.id, c.name, c.input) for c in vercel_calls] == [(c.id, c.name, c.input) for c in agenta_calls]
    assert len({c.id for c in vercel_calls}) == len(vercel_calls)  # one event per call
