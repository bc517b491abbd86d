"""How a pydantic-ai run is driven, and what it costs per turn: the peers workload's agent alone.

The agent of ``bench/peers_apps.py`` (a ``FunctionModel`` streaming ``PEERS_DELTAS`` words),
``--turns`` turns one after another on a uvloop loop, best of ``--repeat``, CPU time, alternated:

- **stream events**: ``agent.run_stream_events`` (what pydantic-ai's own UI adapters drive: the run
  in a background task, every event handed over through a zero-buffer memory stream)
- **iter**: ``agent.iter``, each model-request and call-tools node streamed in the caller's task
- **turnwire adapter**: ``pydantic_ai_agent(agent)`` iterated directly on a new session's context

    python bench/experiments/pydantic_ai_drive.py [--turns 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from pydantic_ai import Agent
from pydantic_ai import messages as pm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: peers_apps

import peers_apps
from timing import interleaved_async
from turnwire.agents.pydantic_ai import pydantic_ai_agent
from turnwire.model import Message, MessageDelta, TextBlock
from turnwire.runtime import TurnContext


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    agent = peers_apps.agent
    served = pydantic_ai_agent(agent)

    async def stream_events() -> None:
        for _ in range(args.turns):
            deltas = 0
            async with agent.run_stream_events("hello") as events:
                async for event in events:
                    deltas += isinstance(event, pm.PartDeltaEvent)
            assert deltas >= peers_apps.DELTAS - 1, deltas

    async def iterated() -> None:
        for _ in range(args.turns):
            deltas = 0
            async with agent.iter("hello") as run:
                async for node in run:
                    if Agent.is_model_request_node(node) or Agent.is_call_tools_node(node):
                        async with node.stream(run.ctx) as stream:
                            async for event in stream:
                                deltas += isinstance(event, pm.PartDeltaEvent)
            assert run.result is not None
            assert deltas >= peers_apps.DELTAS - 1, deltas

    async def adapter() -> None:
        for _ in range(args.turns):
            ctx = TurnContext(messages=[Message("user", [TextBlock("hello")])], session_id="s")
            events = [e async for e in served(ctx)]
            assert sum(isinstance(e, MessageDelta) for e in events) >= peers_apps.DELTAS - 1

    runs: dict[str, Callable[[], Awaitable[None]]] = {
        "stream events": stream_events,
        "iter": iterated,
        "turnwire adapter": adapter,
    }
    best = interleaved_async(runs, args.repeat)
    base = best["stream events"]
    for name, t in best.items():
        print(f"{name:18} {t / args.turns * 1e3:6.2f} ms CPU per turn  {t / base:5.2f}× stream events")


if __name__ == "__main__":
    main()
