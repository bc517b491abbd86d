"""The same approval asked twice on one session never jams it.

The README's round trip run twice on the same session (or its Python client snippet run twice)
sends the first user message again: the conversation is rewound, the demo asks the very same call
(``call_1``, same input), and the approval token is the one already claimed. The second approve must
get the recorded result — the tool does not run again — never ``409 decision_in_progress`` forever.
Doors whose client sends only its new messages (Agentex) ask a new call instead: a new approval.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from approvals_flows import AgentaBatch, Reply
from one_shot_agents import counting
from test_approval_doors import AgentexSend
from test_approval_one_shot import FLOWS

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.client import Client
from turnwire.model import Event, ToolResult
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

_ids = itertools.count()
FAILS_ONCE: list[str] = []


async def fails_when_the_tool_first_runs(ctx: TurnContext) -> AsyncIterator[Event]:
    """The demo, dying the first time it is about to report ``delete_file``'s result: the turn
    holding the claim ends without a recorded result (whether the tool ran is unknown)."""
    async for event in demo_agent(ctx):
        if isinstance(event, ToolResult) and not event.denied and not FAILS_ONCE:
            FAILS_ONCE.append(event.id or "")
            raise RuntimeError("the tool's host went away")
        yield event


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, list[str]]]:
    home: Path = tmp_path_factory.mktemp("reasked")
    settings = Settings(db_url=f"sqlite:///{home / 'store.db'}", approval_secret_file=str(home / "secret"))
    executions: list[str] = []
    agents = {"demo": counting(executions), "flaky": fails_when_the_tool_first_runs}
    with serve_app(create_app(agents, default_agent="demo", settings=settings)) as url:
        yield url, executions


@pytest.mark.parametrize("flow", FLOWS, ids=lambda f: f.name)
def test_an_approval_asked_again_after_a_rewind_gets_the_recorded_result(
    flow, served: tuple[str, list[str]]
) -> None:
    url, executions = served
    sid = f"again-{flow.name}-{next(_ids)}"
    asker = AgentexSend() if isinstance(flow, AgentexSend) else flow  # its stream flow reads no gates
    paused = asker.first(url, sid, "delete notes.txt")
    assert paused.status == 200 and list(paused.gates) == ["call_1"], paused.body
    done = flow.decide(url, sid, paused, {"call_1": True})
    assert done.status == 200 and done.text == "Deleted notes.txt.", done.body
    ran = len(executions)

    again = asker.first(url, sid, "delete notes.txt")
    assert again.status == 200 and len(again.gates) == 1, again.body
    [(call_id, token)] = again.gates.items()
    for _ in range(2):  # and again: the answer is the same every time
        second = flow.decide(url, sid, again, {call_id: True})
        assert second.status == 200, second.body
        assert second.text == "Deleted notes.txt."
    if token == paused.gates["call_1"]:  # the very same call: its recorded result, no second run
        assert len(executions) == ran
    else:  # a new call with a new approval: it runs once
        assert len(executions) == ran + 1


@pytest.mark.parametrize("wire", ["agenta", "vercel"])
def test_the_readme_client_snippet_runs_twice_on_one_session(
    wire: str, served: tuple[str, list[str]]
) -> None:
    url, executions = served
    texts = []
    ran = len(executions)
    with Client(url, format=wire) as client:
        for _ in range(2):
            session = client.session(f"readme-again-{wire}")
            turn = session.send("delete notes.txt")
            assert turn.stop_reason == "paused"
            turn = turn.approve()
            texts.append(turn.result().messages[-1].content[-1].text)
    assert texts == ["Deleted notes.txt.", "Deleted notes.txt."]
    assert len(executions) == ran + 1


def test_a_call_whose_turn_died_reads_as_not_run_once_asked_again(served: tuple[str, list[str]]) -> None:
    """The first approve's turn fails while it holds the claim (no result recorded). Asking again
    from the start must not wait forever on that turn: the call reads as not run, nothing runs."""
    url, _ = served
    flow = AgentaBatch()
    sid = f"died-{next(_ids)}"
    path = f"{url}/agents/flaky"

    paused = flow.first(path, sid, "delete notes.txt")
    assert paused.status == 200 and list(paused.gates) == ["call_1"], paused.body
    failed = flow.decide(path, sid, paused, {"call_1": True})
    assert failed.status == 500 and failed.body["status"]["failure_code"] == "agent_run_failed"
    assert FAILS_ONCE == ["call_1"]

    again = flow.first(path, sid, "delete notes.txt")
    assert again.gates == paused.gates
    second: Reply = flow.decide(path, sid, again, {"call_1": True})
    assert second.status == 200, second.body
    assert second.outcomes == {}  # the tool did not run again
    assert second.stop == "end_turn", second.body
