"""What ``langgraph_agent`` adds per turn to the peers workload's graph, with no runner or server.

The graph of ``bench/peers_graph.py`` (one node, a chat model streaming ``PEERS_DELTAS`` words,
LangGraph's in-memory checkpointer), ``--turns`` turns one after another on a uvloop loop, best of
``--repeat``, CPU time, alternated:

- **bare**: ``graph.astream`` with the adapter's stream modes, each message chunk's text taken
- **adapter**: ``langgraph_agent(graph)`` iterated directly on a new session's context (the
  conversation as LangChain messages, ``aget_state``, the events read from every chunk)

    python bench/experiments/langgraph_adapter.py [--turns 300] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/: peers_graph

import peers_graph
from timing import interleaved_async
from turnwire.model import Message, MessageDelta, TextBlock
from turnwire.runtime import TurnContext


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--turns", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    async def bare() -> None:
        for _ in range(args.turns):
            pieces = [p async for p in peers_graph.stream_turn("hello", uuid.uuid4().hex)]
            assert len(pieces) == peers_graph.DELTAS

    async def adapter() -> None:
        for _ in range(args.turns):
            ctx = TurnContext(messages=[Message("user", [TextBlock("hello")])], session_id=uuid.uuid4().hex)
            events = [e async for e in peers_graph.agent(ctx)]
            assert sum(isinstance(e, MessageDelta) for e in events) == peers_graph.DELTAS

    runs: dict[str, Callable[[], Awaitable[None]]] = {"bare": bare, "adapter": adapter}
    best = interleaved_async(runs, args.repeat)
    for name, t in best.items():
        print(f"{name:8s} {t / args.turns * 1e3:6.2f} ms CPU per turn  {t / best['bare']:.2f}× bare")


if __name__ == "__main__":
    main()
