"""The demo agent with its ``delete_file`` counted: each real execution (a tool result that is not
a denial) waits a moment — so concurrent twins overlap while it runs — then is recorded in memory
and, when ``TURNWIRE_TEST_EXECUTIONS`` names a file, as one line there (for ``turnwire serve``
worker processes)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

from turnwire.agents import demo_agent
from turnwire.model import Event, ToolResult
from turnwire.runtime import TurnContext

TOOL_SECONDS = 0.2
EXECUTIONS: list[str] = []


def counting(executions: list[str]):
    async def agent(ctx: TurnContext) -> AsyncIterator[Event]:
        async for event in demo_agent(ctx):
            if isinstance(event, ToolResult) and not event.denied and not event.is_error:
                await asyncio.sleep(TOOL_SECONDS)
                executions.append(event.id or "")
                path = os.environ.get("TURNWIRE_TEST_EXECUTIONS")
                if path:
                    with open(path, "a") as out:
                        out.write(f"{os.getpid()} {event.id}\n")
            yield event

    return agent


counted_demo = counting(EXECUTIONS)
"""For ``turnwire serve --agent demo=one_shot_agents:counted_demo``."""
