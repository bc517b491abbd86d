"""A weather agent written with the OpenAI Agents SDK, served on every turnwire wire.

    pip install '.[openai-agents]'
    OPENAI_API_KEY=sk-... python examples/weather_openai_agents.py

The alert tool has ``needs_approval=True``: the SDK ends the run with an interruption, turnwire turns
it into an approval request on the wire and hands the user's decision back to the run (``RunState``
approve / reject) on the next request. The SDK talks to the Responses API by default (set
``OPENAI_BASE_URL`` for another server). Also servable as
``turnwire serve --agent weather=weather_openai_agents:agent --app-dir examples`` (the loader
recognises an ``agents.Agent``).
It listens on http://127.0.0.1:8003 (``PORT``/``HOST`` change it; 8000 is ``make run``'s).
"""

from __future__ import annotations

import os

from agents import Agent, function_tool
from weather_tools import SYSTEM, get_weather, send_weather_alert

agent = Agent(
    name="weather",
    instructions=SYSTEM,
    model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
    tools=[function_tool(get_weather), function_tool(send_weather_alert, needs_approval=True)],
)


if __name__ == "__main__":
    import uvicorn

    from turnwire.agents import openai_agents_agent
    from turnwire.server import Settings, create_app

    app = create_app(
        {"weather": openai_agents_agent(agent)}, default_agent="weather", settings=Settings.from_env()
    )
    uvicorn.run(app, host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "8003")))
