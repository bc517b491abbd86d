"""AG-UI capability discovery read by the real client (``@ag-ui/client``'s ``HttpAgent`` subclass
turnwire serves, validated by ``@ag-ui/core``'s ``AgentCapabilitiesSchema``), and the same
documents accepted by ``ag-ui-protocol`` 1.0's ``AgentCapabilities`` with no unknown key."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import AgentCapabilities
from pydantic import BaseModel

from node_runner import run_node_tests
from services import serve_app
from turnwire.agents.demo import demo_agent
from turnwire.agents.tools import Tool
from turnwire.model import Event, MessageEvent
from turnwire.runtime import TurnContext
from turnwire.server import Settings, create_app


def _delete_file(path: str) -> str:
    return f"deleted {path}"


class Tooled:
    """An agent with one tool.

    (Its tools are what turnwire knows of it.)"""

    def __init__(self) -> None:
        parameters = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
        tool = Tool("delete_file", "Delete a file.", parameters, _delete_file, requires_approval=True)
        self.tools = {"delete_file": tool}

    async def __call__(self, ctx: TurnContext) -> AsyncIterator[Event]:
        yield MessageEvent("ok")


def _no_extras(model: Any, where: str) -> None:
    extra = getattr(model, "model_extra", None)
    assert not extra, f"{where}: unknown keys {sorted(extra or {})}"
    for name in getattr(type(model), "model_fields", {}):
        value = getattr(model, name)
        for i, item in enumerate(value if isinstance(value, list) else [value]):
            if name != "custom" and isinstance(item, BaseModel):
                _no_extras(item, f"{where}.{name}[{i}]")


@pytest.mark.node
def test_agui_capabilities_on_the_real_client(tmp_path: Path) -> None:
    settings = Settings(db_url=f"sqlite:///{tmp_path / 'turnwire.db'}", keepalive_seconds=0)
    app = create_app({"demo": demo_agent, "tooled": Tooled()}, default_agent="demo", settings=settings)
    with serve_app(app) as url:
        for path in ("/agui/capabilities", "/agents/tooled/agui/capabilities"):
            answer = httpx.get(url + path)
            assert answer.status_code == 200 and answer.headers["content-type"] == "application/json"
            _no_extras(AgentCapabilities.model_validate(answer.json()), path)
        missing = httpx.get(url + "/agents/nobody/agui/capabilities")
        assert missing.status_code == 404 and missing.json()
        passed = run_node_tests("agui_capabilities.test.mjs", {**os.environ, "SERVER_URL": url}, timeout=120)
    assert passed == 3
