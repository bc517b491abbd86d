"""Approvals with the model adapters through the doors the demo's door tests cover besides /invoke and
/chat: Agentex ``message/send`` and AG-UI ``/agui``, for the OpenAI-compatible agent (recorded streams)
and a pydantic-ai agent (scripted ``FunctionModel``). The shared door clients come from the approvals
tests; only the agent name differs."""

from __future__ import annotations

import itertools
from typing import Any

import httpx
import pytest
from approvals_flows import Reply
from approvals_new_doors import AgUiRun
from model_doors import Doors
from test_approval_doors import AgentexSend

from model_tools import DELETED
from pydantic_models import DELETE_CALL as PYD_DELETE_CALL

OPENAI_DELETE_CALL = "call_D3l3t3N0t3sTxt0000000001"
_ids = itertools.count()


class NamedAgentexSend(AgentexSend):
    """``AgentexSend`` on another agent's RPC route."""

    def __init__(self, agent: str) -> None:
        self.agent = agent

    def rpc(self, url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
        return httpx.post(f"{url}/agents/name/{self.agent}/rpc", json=body, timeout=30).json()


CASES = {
    # agent: (doors fixture, the call the recording / script makes, the agent's name)
    "openai": ("warm", OPENAI_DELETE_CALL, "model"),
    "pydantic-ai": ("pyd_warm", PYD_DELETE_CALL, "pydantic"),
}
REPLIES = {
    True: ("Deleted notes.txt.", ["notes.txt"]),
    False: ("I did not delete notes.txt.", []),
}


@pytest.mark.parametrize("door", ["agentex", "agui"])
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("approved", [True, False], ids=["approve", "deny"])
def test_an_approval_round_trip_on_the_agentex_and_agui_doors(
    request: pytest.FixtureRequest, door: str, case: str, approved: bool
) -> None:
    fixture, call_id, agent = CASES[case]
    doors: Doors = request.getfixturevalue(fixture)
    client = NamedAgentexSend(agent) if door == "agentex" else AgUiRun()
    session = f"{door}-{case}-{next(_ids)}"
    DELETED.clear()
    paused: Reply = client.first(doors.url, session, "delete notes.txt")
    assert paused.status == 200, paused.body
    assert list(paused.gates) == [call_id] and paused.gates[call_id].startswith("ap_")
    assert DELETED == []
    resumed: Reply = client.decide(doors.url, session, paused, {call_id: approved})
    text, deleted = REPLIES[approved]
    assert resumed.status == 200, resumed.body
    assert resumed.text == text
    # Neither door marks a denial apart from its text (the shared clients know the demo's): the
    # call has a result either way, and only an approval ran the tool.
    assert list(resumed.outcomes) == [call_id]
    assert deleted == DELETED


@pytest.mark.parametrize("door", ["agentex", "agui"])
def test_a_forged_token_is_refused_before_the_model_agent_runs(warm: Doors, door: str) -> None:
    client = NamedAgentexSend("model") if door == "agentex" else AgUiRun()
    session = f"forged-{door}-{next(_ids)}"
    DELETED.clear()
    paused = client.first(warm.url, session, "delete notes.txt")
    refused = client.decide(warm.url, session, paused, {OPENAI_DELETE_CALL: True}, token="ap_" + "B" * 43)
    assert refused.status != 200
    assert DELETED == []
