"""A weather agent written with pydantic-ai, served on every turnwire wire.

    pip install '.[pydantic-ai]' 'pydantic-ai-slim[openai]'   # or [anthropic], [google], ...
    OPENAI_API_KEY=sk-... python examples/weather_pydantic_ai.py
    # any pydantic-ai model: PYDANTIC_AI_MODEL=anthropic:claude-sonnet-4-5 ANTHROPIC_API_KEY=... python ...

The alert tool is declared ``requires_approval=True``: pydantic-ai defers it, turnwire turns the deferral
into an approval request on the wire and hands the user's decision back on the next request.
Also servable as ``turnwire serve --agent weather=weather_pydantic_ai:agent`` (the loader recognises a
``pydantic_ai.Agent``) with ``--app-dir examples``.
It listens on http://127.0.0.1:8002 (``PORT``/``HOST`` change it; 8000 is ``make run``'s).
"""

from __future__ import annotations

import os

from pydantic_ai import Agent
from weather_tools import SYSTEM, get_weather, send_weather_alert

agent = Agent(
    os.environ.get("PYDANTIC_AI_MODEL", "openai-chat:gpt-4o-mini"),
    instructions=SYSTEM,  # instructions (unlike system_prompt) are sent on every turn
    defer_model_check=True,  # no key needed to import this module
)
agent.tool_plain(get_weather)
agent.tool_plain(requires_approval=True)(send_weather_alert)


if __name__ == "__main__":
    import uvicorn

    from turnwire.agents import pydantic_ai_agent
    from turnwire.server import Settings, create_app

    app = create_app(
        {"weather": pydantic_ai_agent(agent)}, default_agent="weather", settings=Settings.from_env()
    )
    uvicorn.run(app, host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "8002")))
