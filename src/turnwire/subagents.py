"""The sub-agents open at a point of a turn (``AgentStart`` … ``AgentEnd``) and the name of each
invocation: the agent's ``id``, else its name; ``<key>~2``, ``<key>~3``… for a later invocation
of the same agent in the turn (AG-UI refuses a sub-agent run id used before in the run).

Two places follow a turn's sub-agents and must name them alike: the AG-UI stream, which attributes
the events inside one to it (``subagentRunId``), and the recorder, which notes it beside the
contents written inside it, so that a history read names them as the stream did."""

from __future__ import annotations

from turnwire.model import AgentEnd, AgentStart


class OpenSubagents:
    """The open invocations of one turn, outermost first."""

    __slots__ = ("_open", "_used")

    def __init__(self) -> None:
        self._open: dict[str, str] = {}  # the agent's id or name → its invocation's name
        self._used: set[str] = set()

    @property
    def current(self) -> str | None:
        """The innermost open invocation: what an event now belongs to (``None``: the agent itself)."""
        return next(reversed(self._open.values()), None)

    def start(self, event: AgentStart) -> str | None:
        """The new invocation's name; ``None`` when that agent is open already (the start is dropped)."""
        key = event.id or event.name
        if key in self._open:
            return None
        name, n = key, 1
        while name in self._used:
            n += 1
            name = f"{key}~{n}"
        self._used.add(name)
        self._open[key] = name
        return name

    def end(self, event: AgentEnd) -> str | None:
        """The ended invocation's name; ``None`` for an agent that is not open."""
        return self._open.pop(event.id or event.name, None)

    def close_all(self) -> list[str]:
        """Every open invocation, innermost first, now ended (the turn ends)."""
        names = list(reversed(self._open.values()))
        self._open.clear()
        return names
