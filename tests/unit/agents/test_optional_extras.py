"""The base install has neither ``openai`` nor ``pydantic-ai``: agents, the loader and the server
still work, and ``--model`` says which extra to install."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
sys.modules["openai"] = None        # an import of either now fails as if not installed
sys.modules["pydantic_ai"] = None
from turnwire.agents import AgentLoadError, load_agent, tool
from turnwire.agents.model_spec import model_agent
from turnwire.server.run import parse_agent_specs

assert sorted(parse_agent_specs(["d=turnwire.agents.demo:demo_agent"])) == ["d", "demo"]
assert load_agent("demo").__name__ == "demo_agent"
tool(lambda city: city)
try:
    model_agent("openai:gpt-4o-mini", api_key="sk")
except AgentLoadError as exc:
    print(exc)
"""


def test_the_base_install_needs_no_model_package() -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == (
        "--model 'openai:gpt-4o-mini' needs the openai package: pip install 'turnwire[openai]'"
    )
