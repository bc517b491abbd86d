"""The example agent in docs/agents.md runs as documented."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from turnwire.model import Done, Message, MessageDelta, TextBlock, ToolCall, ToolResult
from turnwire.runtime import TurnContext, run_turn

DOC = Path(__file__).resolve().parents[3] / "docs" / "agents.md"


@pytest.mark.anyio
async def test_documented_example_agent_streams_its_answer() -> None:
    code = re.search(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    assert code is not None, "docs/agents.md lost its example"
    assert len(code.group(1).splitlines()) <= 20
    namespace: dict[str, object] = {}
    exec(compile(code.group(1), str(DOC), "exec"), namespace)
    ctx = TurnContext(messages=[Message(role="user", content=[TextBlock("make noise")])], trace_id="t")
    out = [e async for e in run_turn(namespace["shout"], ctx)]  # type: ignore[arg-type]
    assert out[:2] == [
        ToolCall(id="call_1", name="upper", input={"text": "make noise"}),
        ToolResult(id="call_1", output="MAKE NOISE"),
    ]
    assert "".join(e.delta for e in out if isinstance(e, MessageDelta)) == "MAKE NOISE "
    assert out[-1] == Done(stop_reason="end_turn", trace_id="t")


def test_documented_model_agent_example_builds_its_tools() -> None:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.DOTALL)
    code = next(b for b in blocks if "openai_agent(" in b)
    namespace: dict[str, object] = {}
    exec(compile(code, str(DOC), "exec"), namespace)
    agent = namespace["agent"]
    assert {name: t.requires_approval for name, t in agent.tools.items()} == {  # type: ignore[attr-defined]
        "get_weather": False,
        "delete_file": True,
    }
    weather = agent.tools["get_weather"].definition()["function"]  # type: ignore[attr-defined]
    assert weather["description"] == "The current weather in a city."
    assert weather["parameters"]["properties"]["city"]["description"] == "The city's name, e.g. Paris."
