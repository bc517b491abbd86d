"""A weather agent written as a LangGraph graph, served on every turnwire wire.

    pip install '.[langgraph]' langchain-openai
    OPENAI_API_KEY=sk-... python examples/weather_langgraph.py

The graph is the usual model ↔ tools loop. The alert tool asks first: ``interrupt()`` pauses the
graph with a ``{"tool_call": ...}`` payload, which turnwire shows as an approval request; the user's
decision resumes the graph (``Command(resume={"approved": ...})``) in the checkpointer thread of the
turnwire session. Also servable as ``turnwire serve --agent weather=weather_langgraph:graph
--app-dir examples`` (the loader recognises a compiled graph).
It listens on http://127.0.0.1:8004 (``PORT``/``HOST`` change it; 8000 is ``make run``'s).
"""

from __future__ import annotations

import os
from typing import Any

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt
from weather_tools import SYSTEM, get_weather, send_weather_alert


@tool("send_weather_alert", description=send_weather_alert.__doc__)
def alert(email: str, message: str) -> str:
    answer = interrupt(
        {"tool_call": {"name": "send_weather_alert", "args": {"email": email, "message": message}}}
    )
    if not answer.get("approved"):
        return answer.get("message") or "The user denied this alert."
    return send_weather_alert(email, message)


TOOLS = [tool(get_weather), alert]


def build(model: Any) -> Any:
    """The compiled graph on ``model`` (a LangChain chat model)."""
    bound = model.bind_tools(TOOLS)

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke([("system", SYSTEM), *state["messages"]])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode(TOOLS))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile()  # turnwire adds an in-memory checkpointer; see docs/agents.md


# No key is needed to import this module: the client only connects on the first request.
graph = build(
    ChatOpenAI(
        model=os.environ.get("OPENAI_MODEL", "gpt-4o-mini"),
        api_key=os.environ.get("OPENAI_API_KEY", "unset"),
        stream_usage=True,
    )
)


if __name__ == "__main__":
    import uvicorn

    from turnwire.agents import langgraph_agent
    from turnwire.server import Settings, create_app

    app = create_app(
        {"weather": langgraph_agent(graph)}, default_agent="weather", settings=Settings.from_env()
    )
    uvicorn.run(app, host=os.environ.get("HOST", "127.0.0.1"), port=int(os.environ.get("PORT", "8004")))
