"""Approvals and user input over HTTP in every format, warm, cold and after a restart.

Each scenario runs the first turn, answers it, and checks the resumed turn. The same scenario is
played on a server that keeps paused agents warm, on one that never does (pool size 0), and across
a restart (a new app instance with the same secret file); the resumed turns must be identical.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from approvals_flows import FLOWS, Reply
from approvals_server import Server, run_server
from approvals_wire import normalize

_ids = itertools.count()

SCENARIOS = {
    "approve": ("delete notes.txt", {"call_1": True}, "Deleted notes.txt.", {"call_1": "output"}),
    "deny": ("delete notes.txt", {"call_1": False}, "I did not delete notes.txt.", {"call_1": "denied"}),
    "two approvals, mixed": (
        "delete a.txt and b.txt",
        {"call_1": True, "call_2": False},
        "Deleted a.txt. I did not delete b.txt.",
        {"call_1": "output", "call_2": "denied"},
    ),
}
PAUSED = {"agenta-batch": "paused", "agenta-sse": "paused", "vercel-sse": "other", "chat": "other"}
DONE = {"agenta-batch": "end_turn", "agenta-sse": "end_turn", "vercel-sse": "stop", "chat": "stop"}


def session(flow: str) -> str:
    return f"{flow}-{next(_ids)}"


def resumed_view(reply: Reply, paused: Reply, sid: str) -> object:
    """The resumed turn's full body with both turns' trace ids and the session id blanked."""
    return normalize(reply.body, *reply.trace_ids, *paused.trace_ids, sid)


@pytest.fixture(params=FLOWS, ids=lambda f: f.name)
def flow(request: pytest.FixtureRequest):
    return request.param


@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_approval_round_trip_warm_cold_and_restarted_give_the_same_turn(
    flow, scenario: str, warm: Server, cold: Server, secret_file: Path
) -> None:
    text, answers, expected_text, expected_outcomes = SCENARIOS[scenario]
    views = {}

    def play(first: Server, second: Server | None = None) -> tuple[Reply, Reply]:
        sid = session(flow.name)
        paused = flow.first(first.url, sid, text)
        assert paused.status == 200, paused.body
        assert paused.stop == PAUSED[flow.name]
        assert set(paused.gates) == set(answers)
        assert all(token.startswith("ap_") for token in paused.gates.values())
        assert paused.outcomes == {}
        if second is None:
            return paused, paused
        starts = len(second.starts)
        resumed = flow.decide(second.url, sid, paused, answers)
        assert resumed.status == 200, resumed.body
        assert resumed.stop == DONE[flow.name]
        assert resumed.text == expected_text
        assert resumed.outcomes == expected_outcomes
        if paused.message_id is not None:  # Vercel: the continuation appends to the same message
            assert resumed.message_id == paused.message_id
        views[second.url] = (resumed_view(resumed, paused, sid), len(second.starts) - starts)
        return paused, resumed

    play(warm, warm)
    assert views[warm.url][1] == 0, "a warm resume must not start the agent again"
    play(cold, cold)
    assert views[cold.url][1] == 1, "a cold resume replays the agent from the history"
    assert views[warm.url][0] == views[cold.url][0]

    sid = session(flow.name)
    paused = flow.first(warm.url, sid, text)
    with run_server(secret_file) as restarted:
        resumed = flow.decide(restarted.url, sid, paused, answers)
        assert resumed.status == 200, resumed.body
        assert len(restarted.starts) == 1
        assert resumed_view(resumed, paused, sid) == views[warm.url][0]


def test_user_input_is_asked_then_the_answer_is_echoed_warm_and_cold(
    flow, warm: Server, cold: Server
) -> None:
    views = []
    for server in (warm, cold):
        sid = session(flow.name)
        paused = flow.first(server.url, sid, "ask me")
        assert paused.status == 200, paused.body
        assert paused.stop == PAUSED[flow.name]
        assert paused.text == "What should I echo?"
        starts = len(server.starts)
        answered = flow.answer(server.url, sid, paused, "a blue whale")
        assert answered.status == 200, answered.body
        assert answered.stop == DONE[flow.name]
        assert answered.text == "You answered: a blue whale"
        assert len(server.starts) - starts == (0 if server is warm else 1)
        views.append(resumed_view(answered, paused, sid))
    assert views[0] == views[1]


def test_the_question_is_announced_in_each_format(flow, warm: Server) -> None:
    paused = flow.first(warm.url, session(flow.name), "ask me")
    body = paused.body
    if flow.name == "agenta-batch":
        assert body["pending_interaction"]["kind"] == "user_input"
        assert body["pending_interaction"]["payload"] == {"prompt": "What should I echo?"}
    elif flow.name == "agenta-sse":
        requests = [f["data"] for f in body if f["type"] == "interaction_request"]
        assert [(r["kind"], r["payload"]) for r in requests] == [
            ("user_input", {"prompt": "What should I echo?"})
        ]
    else:
        inputs = [c for c in body[:-1] if c["type"] == "data-input-request"]
        assert len(inputs) == 1 and inputs[0]["data"] == {"prompt": "What should I echo?"}
