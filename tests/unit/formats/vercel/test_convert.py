"""The bundled Vercel example converts through the registry, both ways."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

from turnwire import convert
from turnwire.formats import get_format, names

EXAMPLE = json.loads(resources.files("turnwire.examples").joinpath("vercel-conversation.json").read_text())


def test_vercel_is_discovered_by_the_registry() -> None:
    assert "vercel" in names()
    assert get_format("Vercel").name == "vercel"


def test_vercel_to_vercel_keeps_every_tool_outcome_and_message_id() -> None:
    out = convert(EXAMPLE, source="vercel", target="vercel")
    assert [m["id"] for m in out] == ["sys-1", "user-1", "asst-1", "user-2", "asst-2"]
    tools = {p["toolCallId"]: p for m in out for p in m["parts"] if "toolCallId" in p}
    assert {k: p["state"] for k, p in tools.items()} == {
        "call_read_1": "output-available",
        "call_rm_1": "approval-responded",
        "call_rm_2": "output-denied",
        "call_lint_1": "output-error",
        "call_search_1": "input-available",
        "call_build_1": "approval-responded",
    }
    assert tools["call_rm_2"]["approval"] == {
        "id": "perm_rm_2",
        "approved": False,
        "reason": "keep the cache",
    }
    assert tools["call_build_1"]["approval"] == {"id": "perm_build_1", "approved": True}


def test_vercel_to_agenta_carries_calls_results_and_decisions() -> None:
    out = convert(EXAMPLE, source="vercel", target="agenta")
    blocks = [b for m in out if isinstance(m["content"], list) for b in m["content"]]
    results = {b["toolCallId"]: b for b in blocks if b["type"] == "tool_result"}
    assert results["call_rm_1"]["output"] == {"approved": True, "interactionToken": "perm_rm_1"}
    assert results["call_rm_2"]["output"]["approved"] is False
    assert results["call_lint_1"]["isError"] is True
    assert results["call_build_1"]["output"] == {"approved": True, "interactionToken": "perm_build_1"}
    calls = [b["toolCallId"] for b in blocks if b["type"] == "tool_call"]
    assert calls == ["call_read_1", "call_rm_1", "call_rm_2", "call_lint_1", "call_search_1", "call_build_1"]


def test_agenta_back_to_vercel_gives_one_tool_part_per_call_with_its_state() -> None:
    agenta = convert(EXAMPLE, source="vercel", target="agenta")
    back = convert(agenta, source="agenta", target="vercel")
    assert {m["role"] for m in back} <= {"system", "user", "assistant"}
    tools = {p["toolCallId"]: p["state"] for m in back for p in m["parts"] if "toolCallId" in p}
    assert tools == {
        "call_read_1": "output-available",
        "call_rm_1": "approval-responded",
        "call_rm_2": "output-denied",
        "call_lint_1": "output-error",
        "call_search_1": "input-available",
        "call_build_1": "approval-responded",
    }


def test_cli_converts_the_bundled_example() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "turnwire"), "convert", "--from", "vercel", "--to", "agenta",
         "--example", "vercel-conversation"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["role"] == "system"
