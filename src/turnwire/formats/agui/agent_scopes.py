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

AgUiEvent = dict[str, Any]


class AgentScopes:
    """State, steps, sub-agents and custom events of one run (``AgUiStreamEncoder``'s part)."""

    run_id: str
    _step: int
    _agent_steps: dict[str, None]
    _subagents: dict[str, str]
    _subagent_runs: set[str]

    def _in_step(self) -> list[AgUiEvent]:
        raise NotImplementedError  # provided by AgUiStreamEncoder

    def has_call(self, call_id: str | None) -> bool:
        raise NotImplementedError  # provided by AgUiStreamEncoder

    def _custom_event(self, name: str, value: Any) -> list[AgUiEvent]:
        out = self._in_step()
        out.append({"type": "CUSTOM", "name": name, "value": value})
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
        return [{"type": "STATE_SNAPSHOT", "snapshot": event.state}]

    def _state_delta(self, event: StateDelta) -> list[AgUiEvent]:
        return [{"type": "STATE_DELTA", "delta": event.delta}]

    def _step_start(self, event: StepStart) -> list[AgUiEvent]:
        """The agent's own steps beside turnwire's ``step-<n>`` (which bracket model calls); the
        client refuses a name already active, so a repeated start is dropped."""
        if event.name in self._agent_steps or event.name == f"step-{self._step}":
            return []
        self._agent_steps[event.name] = None
        return [{"type": "STEP_STARTED", "stepName": event.name}]

    def _step_end(self, event: StepEnd) -> list[AgUiEvent]:
        if event.name not in self._agent_steps:
            return []
        del self._agent_steps[event.name]
        return [{"type": "STEP_FINISHED", "stepName": event.name}]

    def _agent_start(self, event: AgentStart) -> list[AgUiEvent]:
        key = event.id or event.name
        if key in self._subagents:
            return []
        # Run ids are per invocation (the client refuses one used before in the run).
        run_id = base = f"{self.run_id}:{key}"
        n = 1
        while run_id in self._subagent_runs:
            n += 1
            run_id = f"{base}~{n}"
        self._subagent_runs.add(run_id)
        self._subagents[key] = run_id
        return [{"type": "SUBAGENT_STARTED", "subagentRunId": run_id, "name": event.name}]

    def _agent_end(self, event: AgentEnd) -> list[AgUiEvent]:
        run_id = self._subagents.pop(event.id or event.name, None)
        if run_id is None:
            return []
        return [{"type": "SUBAGENT_FINISHED", "subagentRunId": run_id}]

    def _close_agent_scopes(self) -> list[AgUiEvent]:
        """The agent's steps and sub-agents still open when the run ends, innermost first."""
        out: list[AgUiEvent] = [
            {"type": "STEP_FINISHED", "stepName": name} for name in reversed(self._agent_steps)
        ]
        out += [
            {"type": "SUBAGENT_FINISHED", "subagentRunId": run_id}
            for run_id in reversed(self._subagents.values())
        ]
        self._agent_steps.clear()
        self._subagents.clear()
        return out
