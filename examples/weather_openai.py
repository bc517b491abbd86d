"""A weather agent on any OpenAI-compatible Chat Completions model, served on every turnwire wire.

    OPENAI_API_KEY=sk-... python examples/weather_openai.py
    # a local server (Ollama, vLLM, llama.cpp, LiteLLM...) needs no key:
    OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=llama3.2 python examples/weather_openai.py

Then talk to it on http://127.0.0.1:8001 (``/invoke``, ``/chat`` for useChat, Agentex RPC). Ask
"weather in Paris", then "send the Paris forecast to ana@example.com": the alert waits for your approval.
Also servable as ``turnwire serve --agent weather=weather_openai:agent`` with ``--app-dir examples``.
"""

from __future__ import annotations

import os

from weather_tools import SYSTEM, get_weather, send_weather_alert

from turnwire.agents import openai_agent, tool

MODEL = os.environ.get("OPENAI_MODEL", "gpt-4o-mini")

# A base URL without a key is a local server, which takes any key: openai_agent sends a placeholder.
agent = openai_agent(
    MODEL,
    [get_weather, tool(send_weather_alert, requires_approval=True)],
    system=SYSTEM,
    base_url=os.environ.get("OPENAI_BASE_URL") or None,
)


if __name__ == "__main__":
    import uvicorn

    from turnwire.server import Settings, create_app

    app = create_app({"weather": agent}, default_agent="weather", settings=Settings.from_env())
    uvicorn.run(app, host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "8001")))
