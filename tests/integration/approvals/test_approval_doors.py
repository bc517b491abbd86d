"""Every door runs a turn through one pipeline, so every door guards a gated tool alike.

The same scenarios — approve, deny, forged, altered, missing token, another session's token — go
through ``/invoke`` (Agenta batch), ``/chat`` (useChat), Agentex ``message/send``, ``/agui`` and
``/v1/chat/completions`` against one server with a store. ``executions`` counts the times the
demo's ``delete_file`` really ran (a tool result that is not a denial); it must move only for a
valid approval.
"""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from approvals_a2a_door import A2ASend
from approvals_flows import AgentaBatch, Reply, UseChat
from approvals_new_doors import AgUiRun, OpenAIChat

from services import serve_app
from turnwire.agents import demo_agent
from turnwire.model import Event, ToolResult
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app

_ids = itertools.count()
FORGED = "ap_" + "B" * 43


@dataclass
class Doors:
    url: str
    executions: list[str] = field(default_factory=list)


def counting(executions: list[str]):
    async def agent(ctx: TurnContext) -> AsyncIterator[Event]:
        async for event in demo_agent(ctx):
            if isinstance(event, ToolResult) and not event.denied and not event.is_error:
                executions.append(event.id)
            yield event

    return agent


@pytest.fixture(scope="module")
def doors(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Doors]:
    home: Path = tmp_path_factory.mktemp("doors")
    executions: list[str] = []
    settings = Settings(db_url=f"sqlite:///{home / 'doors.db'}", approval_secret_file=str(home / "secret"))
    app = create_app({"demo": counting(executions)}, settings=settings)
    with serve_app(app) as url:
        yield Doors(url, executions)


class AgentexSend:
    """Agentex ``message/send`` on a task named after the session: the approval request is the
    ``interaction_request`` data content, its ``id`` the token; the answer is a ``tool_response``
    content ``{"approved": bool, "interactionToken": id}`` for the call."""

    name = "agentex"

    def rpc(self, url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
        body = {"jsonrpc": "2.0", "id": next(_ids), "method": method, "params": params}
        return httpx.post(f"{url}/agents/name/demo/rpc", json=body, timeout=30).json()

    def send(self, url: str, session: str, content: dict[str, Any]) -> Reply:
        reply = self.rpc(url, "message/send", {"task_name": session, "content": content})
        if reply["error"] is not None:
            return Reply(400, reply["error"], [])
        out = Reply(200, reply["result"], [])
        for message in reply["result"]:
            c = message["content"]
            if c["type"] == "text":
                out.text = c["content"]
            elif c["type"] == "tool_response":
                denied = isinstance(c["content"], dict) and c["content"].get("denied")
                out.outcomes[c["tool_call_id"]] = "denied" if denied else "output"
            elif c["type"] == "data" and c["data"].get("type") == "interaction_request":
                request = c["data"]
                out.gates[request["payload"]["toolCallId"]] = request["id"]
                out.body = request
        return out

    def first(self, url: str, session: str, text: str) -> Reply:
        self.rpc(url, "task/create", {"name": session})
        return self.send(url, session, {"type": "text", "author": "user", "content": text})

    def decide(self, url: str, session: str, paused: Reply, answers: dict[str, bool], **tamper: Any) -> Reply:
        [(call_id, approved)] = answers.items()
        decision: dict[str, Any] = {"approved": approved}
        token = tamper.get("token", paused.gates.get(call_id))
        if token is not None:
            decision["interactionToken"] = token
        if "input" in tamper:  # an altered call: the client re-sends the request with other arguments
            altered = {
                "type": "tool_request",
                "author": "agent",
                "tool_call_id": call_id,
                "name": "delete_file",
                "arguments": tamper["input"],
            }
            self.send(url, session, altered)
        content = {
            "type": "tool_response",
            "author": "user",
            "tool_call_id": call_id,
            "name": "delete_file",
            "content": decision,
        }
        return self.send(url, session, content)


DOORS = [AgentaBatch(), UseChat(), AgentexSend(), AgUiRun(), OpenAIChat(), A2ASend()]


@pytest.fixture(params=DOORS, ids=lambda d: d.name)
def door(request: pytest.FixtureRequest):
    return request.param


def pause(door, doors: Doors, text: str = "delete notes.txt") -> tuple[str, Reply]:
    sid = f"door-{door.name}-{next(_ids)}"
    paused = door.first(doors.url, sid, text)
    assert paused.status == 200 and list(paused.gates) == ["call_1"], paused.body
    assert paused.gates["call_1"].startswith("ap_")  # a signed token on every door
    return sid, paused


def test_an_approval_runs_the_tool_once_on_every_door(door, doors: Doors) -> None:
    sid, paused = pause(door, doors)
    before = len(doors.executions)
    resumed = door.decide(doors.url, sid, paused, {"call_1": True})
    assert resumed.status == 200, resumed.body
    assert resumed.outcomes == {"call_1": "output"} and resumed.text == "Deleted notes.txt."
    assert len(doors.executions) == before + 1


def test_a_denial_never_runs_the_tool_on_any_door(door, doors: Doors) -> None:
    sid, paused = pause(door, doors)
    before = len(doors.executions)
    resumed = door.decide(doors.url, sid, paused, {"call_1": False})
    assert resumed.status == 200, resumed.body
    assert resumed.text == "I did not delete notes.txt."
    assert len(doors.executions) == before


@pytest.mark.parametrize(
    "tamper",
    [{"token": FORGED}, {"input": {"path": "/etc/passwd"}}, {"token": None}, {"other_session": True}],
    ids=["forged", "altered-input", "missing-token", "other-session"],
)
@pytest.mark.parametrize("door", [AgentaBatch(), UseChat(), AgUiRun(), OpenAIChat()], ids=lambda d: d.name)
def test_a_decision_the_server_did_not_issue_never_runs_the_tool(
    door, doors: Doors, tamper: dict[str, Any]
) -> None:
    _refused_without_running(door, doors, tamper)


@pytest.mark.parametrize(
    "tamper",
    [{"token": FORGED}, {"token": None}, {"other_session": True}],
    ids=["forged", "missing-token", "other-session"],
)
def test_an_agentex_decision_the_server_did_not_issue_never_runs_the_tool(
    doors: Doors, tamper: dict[str, Any]
) -> None:
    _refused_without_running(AgentexSend(), doors, tamper)


@pytest.mark.parametrize(
    "tamper",
    [{"token": FORGED}, {"token": None}, {"other_session": True}],
    ids=["forged", "missing-token", "other-session"],
)
def test_an_a2a_decision_the_server_did_not_issue_never_runs_the_tool(
    doors: Doors, tamper: dict[str, Any]
) -> None:
    """The A2A client never holds the call: the server's stored call is what a decision names."""
    _refused_without_running(A2ASend(), doors, tamper)


def test_an_agentex_client_cannot_alter_the_call_it_approves(doors: Doors) -> None:
    """The stored call is the one a decision is checked against: re-sending the request with other
    arguments changes nothing, and the approved input is the one asked about."""
    door = AgentexSend()
    sid, paused = pause(door, doors)
    resumed = door.decide(doors.url, sid, paused, {"call_1": True}, input={"path": "/etc/passwd"})
    assert resumed.text == "Deleted notes.txt."
    assert "/etc/passwd" not in str(resumed.body)


def _refused_without_running(door, doors: Doors, tamper: dict[str, Any]) -> None:
    sid, paused = pause(door, doors)
    before = len(doors.executions)
    if tamper.get("other_session"):
        other, _ = pause(door, doors)
        reply = door.decide(doors.url, other, paused, {"call_1": True})
    elif "token" in tamper and tamper["token"] is None:
        paused.gates.pop("call_1")
        reply = _without_token(door, doors, sid, paused)
    else:
        reply = door.decide(doors.url, sid, paused, {"call_1": True}, **tamper)
    assert reply.status in (400, 409, 422), reply.body
    if hasattr(door, "error_message"):
        message = door.error_message(reply.body)
    else:
        message = reply.body["message"] if door.name == "agentex" else reply.body["detail"][0]["msg"]
    assert "'call_1'" in message
    assert len(doors.executions) == before


def _without_token(door, doors: Doors, sid: str, paused: Reply) -> Reply:
    if hasattr(door, "without_token"):
        return door.without_token(doors.url, sid, paused)
    if door.name == "agentex":
        return door.decide(doors.url, sid, paused, {"call_1": True})
    if door.name == "chat":
        return door.decide(doors.url, sid, paused, {"call_1": True}, token="")
    history = [*paused.history, {"role": "tool", "content": {"approved": True}, "tool_call_id": "call_1"}]
    return door.send(doors.url, sid, history)
