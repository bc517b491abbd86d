"""Function tools: JSON schema from type hints and docstrings, validated calls, sync and async."""

from __future__ import annotations

import threading
from typing import Literal

import pytest
from pydantic import BaseModel

from turnwire.agents import Tool, tool
from turnwire.agents.tools import ToolInputError, as_tools, result_text

pytestmark = pytest.mark.anyio


def search(
    query: str, limit: int = 5, kind: Literal["web", "news"] = "web", tags: list[str] | None = None
) -> list:
    """Search the index.

    Longer explanation that is not part of the description.

    Args:
        query: What to look for,
            in plain words.
        limit (int): At most this many hits.
        kind: Where to look.

    Returns:
        The hits.
    """
    return [query] * limit


def test_schema_and_descriptions_come_from_hints_and_the_docstring() -> None:
    built = tool(search)
    assert built.name == "search" and built.description == "Search the index."
    assert built.definition() == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the index.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for, in plain words."},
                    "limit": {"type": "integer", "default": 5, "description": "At most this many hits."},
                    "kind": {
                        "enum": ["web", "news"],
                        "type": "string",
                        "default": "web",
                        "description": "Where to look.",
                    },
                    "tags": {
                        "anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}],
                        "default": None,
                    },
                },
                "required": ["query"],
            },
        },
    }


async def test_calls_are_validated_and_coerced() -> None:
    built = tool(search)
    assert await built.call({"query": "x", "limit": "2"}) == ["x", "x"]
    with pytest.raises(ToolInputError, match=r"invalid arguments for search: query: Field required"):
        await built.call({})
    with pytest.raises(ToolInputError, match="must be a JSON object"):
        await built.call("query=x")


async def test_sync_tools_run_in_a_worker_thread_and_async_ones_in_the_loop() -> None:
    def sync_tool() -> str:
        return threading.current_thread().name

    async def async_tool() -> str:
        return threading.current_thread().name

    main = threading.current_thread().name
    assert await tool(sync_tool).call({}) != main
    assert await tool(async_tool).call(None) == main


def test_options_and_plain_functions() -> None:
    @tool(name="rm", description="Remove it.", requires_approval=True)
    def remove(path: str) -> None: ...

    assert isinstance(remove, Tool) and (remove.name, remove.description, remove.requires_approval) == (
        "rm",
        "Remove it.",
        True,
    )
    tools = as_tools([search, remove])
    assert list(tools) == ["search", "rm"] and not tools["search"].requires_approval
    with pytest.raises(ValueError, match="two tools are named 'search'"):
        as_tools([search, search])


def test_results_are_text_for_the_model() -> None:
    class Hit(BaseModel):
        title: str

    assert result_text("plain") == "plain"
    assert result_text({"a": [1, 2]}) == '{"a":[1,2]}'
    assert result_text(Hit(title="t")) == '{"title":"t"}'
