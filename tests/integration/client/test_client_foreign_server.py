"""The client needs only the Agenta invoke protocol: a minimal server that is not turnwire (frames
that repeat `type` inside `data`, extra frame types, keepalive comments, no history routes)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from foreign_agenta import SEEN, foreign_app
from services import serve_app
from turnwire.client import Client
from turnwire.model import TextBlock


@pytest.fixture(scope="module")
def foreign_url() -> Iterator[str]:
    with serve_app(foreign_app()) as url:
        yield url


def test_a_foreign_agenta_server_round_trip(foreign_url: str) -> None:
    with Client(foreign_url) as client:
        session = client.session("foreign-1", resume=True)  # no history route: starts empty
        assert session.history == []
        turn = session.send("remove it")
        assert turn.stop_reason == "paused"
        [request] = turn.pending
        assert request.id == "tok-1"
        done = turn.approve()
        text = [b.text for m in done.result().messages for b in m.content if isinstance(b, TextBlock)]
    decision = SEEN[-1]["data"]["inputs"]["messages"][-1]
    assert decision["role"] == "tool"
    assert decision["content"][0]["toolCallId"] == "c1"
    assert decision["content"][0]["output"] == {"approved": True, "interactionToken": "tok-1"}
    assert len(text) == 1 and text[0].startswith("decision seen: ")
    assert json.loads(text[0].removeprefix("decision seen: "))[0]["output"]["interactionToken"] == "tok-1"
    assert SEEN[-1]["session_id"] == "foreign-1"
