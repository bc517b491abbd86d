"""AG-UI 1.0 sub-agent attribution: what an agent sends between ``agent_start`` and ``agent_end``
carries the invocation's ``subagentRunId`` (the events 1.0 makes attributable), a call never joins
a message of another agent, nested invocations name their parent, a run that pauses inside one
suspends it on its interrupts — and the client's messages (``assembled``) carry the attribution."""

from __future__ import annotations

from typing import Any

from agui_checks import check_stream
from turnwire.formats.agui import AgUiStreamEncoder
from turnwire.formats.agui.assembled import assembled
from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    InteractionKind,
    InteractionRequest,
    MessageDelta,
    MessageEnd,
    MessageStart,
    StateSnapshot,
    StepEnd,
    StepStart,
    Thought,
    ToolCall,
    ToolCallDelta,
    ToolResult,
)

RUN_SCOPED = {"RUN_STARTED", "RUN_FINISHED", "RUN_ERROR", "MESSAGES_SNAPSHOT"}


def run(events: list[Event], stop: str | None = None) -> list[dict[str, Any]]:
    enc = AgUiStreamEncoder("t", "r", message_id="M")
    out = enc.start()
    for event in events:
        out += enc.encode(event)
    out += enc.finish(stop)
    check_stream(out)
    return out


def test_everything_a_sub_agent_sends_is_attributed_to_its_invocation() -> None:
    out = run(
        [
            AgentStart("researcher"),
            StateSnapshot({"n": 0}),
            StepStart("search"),
            Thought("thinking"),
            ToolCallDelta("c1", '{"q":', "search"),
            ToolCallDelta("c1", '"x"}'),
            ToolCall("c1", "search", {"q": "x"}),
            ToolResult("c1", name="search", output="found"),
            StepEnd("search"),
            DataEvent(name="card", data={"a": 1}),
            CustomEvent("acme.ping", None),
            MessageStart("m1"),
            MessageDelta("m1", "Here."),
            MessageEnd("m1"),
            AgentEnd("researcher"),
        ]
    )
    started = next(e for e in out if e["type"] == "SUBAGENT_STARTED")
    assert started == {"type": "SUBAGENT_STARTED", "subagentRunId": "M:researcher", "name": "researcher"}
    end = next(i for i, e in enumerate(out) if e["type"] == "SUBAGENT_FINISHED")
    inside = out[out.index(started) + 1 : end]
    for event in inside:
        if event["type"] in ("STEP_STARTED", "STEP_FINISHED") and event["stepName"].startswith("step-"):
            assert "subagentRunId" not in event  # turnwire's own model steps are the run's
        else:
            assert event.get("subagentRunId") == "M:researcher", event
    assert all("subagentRunId" not in e for e in out if e["type"] in RUN_SCOPED)


def test_the_client_holds_the_sub_agents_messages_as_its_own() -> None:
    out = run(
        [
            MessageStart("a"),
            MessageDelta("a", "Asking the researcher."),
            AgentStart("researcher"),
            ToolCall("c1", "search", {}),
            ToolResult("c1", name="search", output="ok"),
            MessageStart("b"),
            MessageDelta("b", "Found it."),
            MessageEnd("b"),
            AgentEnd("researcher"),
            MessageDelta("a", " Done."),
            MessageEnd("a"),
        ]
    )
    # The parent's open message keeps its owner inside the sub-agent (the client checks that).
    assert {e.get("subagentRunId") for e in out if e.get("messageId") == "M"} == {None}
    start = next(e for e in out if e["type"] == "TOOL_CALL_START")
    assert start["parentMessageId"] != "M"  # the call is not the parent's text's
    held = assembled(out)
    assert [(m["role"], m.get("subagentRunId")) for m in held] == [
        ("assistant", None),
        ("assistant", "M:researcher"),
        ("tool", "M:researcher"),
        ("assistant", "M:researcher"),
    ]
    assert held[0]["content"] == "Asking the researcher. Done."


def test_nested_and_repeated_invocations_have_their_own_run_ids() -> None:
    out = run(
        [
            AgentStart("lead"),
            AgentStart("researcher"),
            AgentEnd("researcher"),
            AgentStart("researcher"),
            AgentEnd("researcher"),
            AgentEnd("lead"),
        ]
    )
    subagents = [e for e in out if e["type"].startswith("SUBAGENT_")]
    assert subagents == [
        {"type": "SUBAGENT_STARTED", "subagentRunId": "M:lead", "name": "lead"},
        {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": "M:researcher",
            "name": "researcher",
            "parentSubagentRunId": "M:lead",
        },
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "M:researcher"},
        {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": "M:researcher~2",
            "name": "researcher",
            "parentSubagentRunId": "M:lead",
        },
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "M:researcher~2"},
        {"type": "SUBAGENT_FINISHED", "subagentRunId": "M:lead"},
    ]


def test_a_run_paused_inside_a_sub_agent_suspends_it_on_its_interrupt() -> None:
    payload = {"toolCallId": "c1", "toolName": "rm", "toolCall": {"rawInput": {}}}
    out = run(
        [
            AgentStart("janitor"),
            StepStart("clean"),
            ToolCall("c1", "rm", {}),
            InteractionRequest("ap_1", InteractionKind.USER_APPROVAL, payload),
            Done("paused"),
        ]
    )
    (interrupt,) = out[-1]["outcome"]["interrupts"]
    assert interrupt["subagentRunId"] == "M:janitor"
    step_end, finished = out[-3], out[-2]
    assert step_end == {"type": "STEP_FINISHED", "stepName": "clean", "subagentRunId": "M:janitor"}
    assert finished == {
        "type": "SUBAGENT_FINISHED",
        "subagentRunId": "M:janitor",
        "outcome": {"type": "suspended", "interruptIds": [interrupt["id"]]},
    }


def test_a_step_of_the_same_name_may_be_open_in_the_agent_and_a_sub_agent() -> None:
    out = run([StepStart("plan"), AgentStart("sub"), StepStart("plan"), StepEnd("plan"), AgentEnd("sub")])
    plans = [(e["type"], e.get("subagentRunId")) for e in out if e.get("stepName") == "plan"]
    assert plans == [
        ("STEP_STARTED", None),
        ("STEP_STARTED", "M:sub"),
        ("STEP_FINISHED", "M:sub"),
        ("STEP_FINISHED", None),  # closed at the run's end, by the agent that started it
    ]


def test_a_run_that_fails_inside_a_sub_agent_reports_the_sub_agent_failed() -> None:
    out = run([AgentStart("researcher"), MessageStart("m"), ErrorEvent("boom", "tool_down")])
    assert [e["type"] for e in out[-4:]] == [
        "TEXT_MESSAGE_END",
        "STEP_FINISHED",
        "SUBAGENT_ERROR",
        "RUN_ERROR",
    ]
    assert out[-2] == {
        "type": "SUBAGENT_ERROR",
        "subagentRunId": "M:researcher",
        "message": "boom",
        "code": "tool_down",
    }
