"""LangGraph graphs on the fake OpenAI server (``ChatOpenAI`` with a loopback ``base_url``): the
recorded streams' tools, the delete tool asking for approval with ``interrupt()``."""

from __future__ import annotations

from typing import Any

import httpx
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt

from model_tools import DELETED


@tool
def get_weather(city: str) -> dict[str, Any]:
    """The current weather in a city."""
    return {"city": city, "condition": "Sunny", "temperature_c": 21}


@tool
def delete_file(path: str) -> str:
    """Delete a file (asks the user first)."""
    answer = interrupt({"tool_call": {"name": "delete_file", "args": {"path": path}}})
    if not answer.get("approved"):
        return answer.get("message") or "denied"
    DELETED.append(path)
    return f'{{"path": "{path}", "deleted": true}}'


def weather_graph(base_url: str, checkpointer: Any = None, http: httpx.AsyncClient | None = None) -> Any:
    model = ChatOpenAI(
        model="gpt-4o-mini",
        base_url=base_url,
        api_key="sk-test",
        max_retries=0,
        stream_usage=True,
        # Its own connection pool: langchain-openai shares one per base URL by default, and each
        # test server runs its own event loop, which a pool belongs to.
        http_async_client=http or httpx.AsyncClient(),
    ).bind_tools([get_weather, delete_file])

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("model", call_model)
    builder.add_node("tools", ToolNode([get_weather, delete_file]))
    builder.add_edge(START, "model")
    builder.add_conditional_edges("model", tools_condition)
    builder.add_edge("tools", "model")
    return builder.compile(checkpointer=checkpointer)


def question_graph() -> Any:
    """A graph that asks the user something and answers with what they said (no model)."""

    def ask(state: MessagesState) -> dict[str, Any]:
        city = interrupt({"question": "Which city?"})
        return {"messages": [("ai", f"You chose {city}.")]}

    builder = StateGraph(MessagesState)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile()
