"""The AG-UI events of the canonical events beyond the Agenta runtime's: state, the agent's own
steps, sub-agents, and the ``CUSTOM`` events that carry sources, tool progress and custom events
(see the table in ``stream``). A mixin of ``AgUiStreamEncoder``, which owns the run's state."""

from __future__ import annotations

from typing import Any

from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    ToolProgress,
)
from turnwire.subagents import OpenSubagents

AgUiEvent = dict[str, Any]


class AgentScopes:
    """State, steps, sub-agents and custom events of one run (``AgUiStreamEncoder``'s part), and
    the attribution of every event to the sub-agent it belongs to (``subagentRunId``)."""

    message_id: str
    _step: int
    _agent_steps: dict[tuple[str | None, str], None]
    _subagents: OpenSubagents
    _interrupts_of: dict[str, list[str]]

    def _in_step(self) -> list[AgUiEvent]:
        raise NotImplementedError  # provided by AgUiStreamEncoder

    def has_call(self, call_id: str | None) -> bool:
        raise NotImplementedError  # provided by AgUiStreamEncoder

    # ----------------------------------------------------------------- attribution

    def _run_id_of(self, invocation: str | None) -> str | None:
        return None if invocation is None else subagent_run_id(self.message_id, invocation)

    @property
    def owner(self) -> str | None:
        """The ``subagentRunId`` of what the agent sends now (``None``: the agent itself)."""
        return self._run_id_of(self._subagents.current)

    def _custom_event(self, name: str, value: Any) -> list[AgUiEvent]:
        out = self._in_step()
        out.append(attributed({"type": "CUSTOM", "name": name, "value": value}, self.owner))
        return out

    def _source_url(self, event: SourceUrl) -> list[AgUiEvent]:
        # AG-UI has no citation event: a CUSTOM in the AI SDK's source-url shape.
        value = {"sourceId": event.id, "url": event.url}
        if event.title is not None:
            value["title"] = event.title
        return self._custom_event("source_url", value)

    def _source_document(self, event: SourceDocument) -> list[AgUiEvent]:
        value = {"sourceId": event.id, "mediaType": event.media_type, "title": event.title}
        if event.filename is not None:
            value["filename"] = event.filename
        return self._custom_event("source_document", value)

    def _tool_progress(self, event: ToolProgress) -> list[AgUiEvent]:
        # TOOL_CALL_RESULT is final (it adds the tool message): progress is a CUSTOM beside it.
        if not self.has_call(event.id):
            return []
        return self._custom_event("tool_progress", {"toolCallId": event.id, "output": event.output})

    def _custom(self, event: CustomEvent) -> list[AgUiEvent]:
        return self._custom_event(event.kind, event.data)

    def _state_snapshot(self, event: StateSnapshot) -> list[AgUiEvent]:
        return [attributed({"type": "STATE_SNAPSHOT", "snapshot": event.state}, self.owner)]

    def _state_delta(self, event: StateDelta) -> list[AgUiEvent]:
        return [attributed({"type": "STATE_DELTA", "delta": event.delta}, self.owner)]

    def _step_start(self, event: StepStart) -> list[AgUiEvent]:
        """The agent's own steps beside turnwire's ``step-<n>`` (which bracket model calls); the
        client refuses a name already active for the same (sub-)agent, so a repeated start is
        dropped, and a step is finished by whoever started it."""
        owner = self.owner
        if (owner, event.name) in self._agent_steps or (owner is None and event.name == f"step-{self._step}"):
            return []
        self._agent_steps[(owner, event.name)] = None
        return [attributed({"type": "STEP_STARTED", "stepName": event.name}, owner)]

    def _step_end(self, event: StepEnd) -> list[AgUiEvent]:
        key = (self.owner, event.name)
        if key not in self._agent_steps:
            return []
        del self._agent_steps[key]
        return [attributed({"type": "STEP_FINISHED", "stepName": event.name}, key[0])]

    def _agent_start(self, event: AgentStart) -> list[AgUiEvent]:
        parent = self.owner
        invocation = self._subagents.start(event)
        if invocation is None:
            return []
        started: AgUiEvent = {
            "type": "SUBAGENT_STARTED",
            "subagentRunId": self._run_id_of(invocation),
            "name": event.name,
        }
        if parent is not None:
            started["parentSubagentRunId"] = parent
        return [started]

    def _agent_end(self, event: AgentEnd) -> list[AgUiEvent]:
        run_id = self._run_id_of(self._subagents.end(event))
        if run_id is None:
            return []
        return [*self._finish_steps_of(run_id), {"type": "SUBAGENT_FINISHED", "subagentRunId": run_id}]

    def _finish_steps_of(self, owner: str | None) -> list[AgUiEvent]:
        names = [name for (o, name) in reversed(self._agent_steps) if o == owner]
        for name in names:
            del self._agent_steps[(owner, name)]
        return [attributed({"type": "STEP_FINISHED", "stepName": name}, owner) for name in names]

    def _close_agent_scopes(
        self, suspended: bool = False, failed: tuple[str, str | None] | None = None
    ) -> list[AgUiEvent]:
        """The agent's steps and sub-agents still open when the run ends, innermost first. When the
        run pauses on interrupts, a sub-agent open then is suspended (on its own interrupts, if
        any); when it fails (``failed``: its message and code), the sub-agent failed too."""
        out: list[AgUiEvent] = []
        for invocation in self._subagents.close_all():
            run_id = self._run_id_of(invocation)
            out += self._finish_steps_of(run_id)
            if failed is not None:
                error: AgUiEvent = {"type": "SUBAGENT_ERROR", "subagentRunId": run_id, "message": failed[0]}
                if failed[1]:
                    error["code"] = failed[1]
                out.append(error)
                continue
            finished: AgUiEvent = {"type": "SUBAGENT_FINISHED", "subagentRunId": run_id}
            if suspended:
                outcome: AgUiEvent = {"type": "suspended"}
                own = self._interrupts_of.get(run_id or "")
                if own:
                    outcome["interruptIds"] = own
                finished["outcome"] = outcome
            out.append(finished)
        out += self._finish_steps_of(None)
        return out


def subagent_run_id(message_id: str, invocation: str) -> str:
    """The AG-UI ``subagentRunId`` of a sub-agent invocation (``turnwire.subagents``) in the turn
    whose stored message id is ``message_id``: the stream and the history (``conversation``) name
    it alike, and it is unique in the thread as that id is."""
    return f"{message_id}:{invocation}"


def attributed(event: AgUiEvent, owner: str | None) -> AgUiEvent:
    """``event`` attributed to the sub-agent ``owner`` (left out for the agent itself: no nulls)."""
    if owner is not None:
        event["subagentRunId"] = owner
    return event
