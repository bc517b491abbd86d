"""Converting to and from Agentex through the registry, in Python and with ``turnwire convert``."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest
from agentex.types import TaskMessageContent
from pydantic import TypeAdapter

from turnwire import convert
from turnwire.errors import InputError

TURNWIRE = str(Path(sys.executable).parent / "turnwire")
VERCEL = json.loads(resources.files("turnwire.examples").joinpath("vercel-conversation.json").read_text())
CLIENT_CONTENT = TypeAdapter(TaskMessageContent)
STATES = {
    "call_read_1": "output-available",
    "call_rm_1": "approval-responded",
    "call_rm_2": "output-denied",
    "call_lint_1": "output-error",
    "call_search_1": "input-available",
    "call_build_1": "approval-responded",
}
"""The tool states of the bundled Vercel example (see tests/unit/formats/vercel/test_convert.py)."""


def test_vercel_to_agentex_carries_every_call_result_and_decision() -> None:
    out = convert(VERCEL, source="vercel", target="agentex")
    for content in out:
        CLIENT_CONTENT.validate_python(content)
    calls = [c["tool_call_id"] for c in out if c["type"] == "tool_request"]
    assert calls == list(STATES)
    results = {c["tool_call_id"]: c for c in out if c["type"] == "tool_response"}
    assert results["call_rm_1"]["content"] == {"approved": True, "interactionToken": "perm_rm_1"}
    assert results["call_rm_2"]["content"]["approved"] is False
    assert (results["call_lint_1"]["content"], results["call_lint_1"]["is_error"]) == ("ruff: 3 errors", True)
    assert "call_search_1" not in results  # still waiting: a call without a result


def test_vercel_through_agentex_and_back_keeps_each_tool_state() -> None:
    back = convert(convert(VERCEL, source="vercel", target="agentex"), source="agentex", target="vercel")
    assert {p["toolCallId"]: p["state"] for m in back for p in m["parts"] if "toolCallId" in p} == STATES


def test_agenta_tool_messages_become_tool_request_and_tool_response_contents() -> None:
    agenta = [
        {"role": "user", "content": "ls"},
        {"role": "tool", "content": "", "tool_call_id": "c1", "tool_name": "bash", "input": {"cmd": "ls"}},
        {"role": "tool", "content": "a.txt", "tool_call_id": "c1", "is_error": False},
    ]
    assert [c["type"] for c in convert(agenta, source="agenta", target="agentex")] == [
        "text",
        "tool_request",
        "tool_response",
    ]


def test_bad_agentex_input_is_an_input_error_naming_index_and_field() -> None:
    with pytest.raises(InputError) as info:
        convert([{"type": "text", "author": "assistant", "content": "x"}], source="agentex", target="agenta")
    assert info.value.where == "messages[0].author"


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([TURNWIRE, "convert", *args], input=stdin, capture_output=True, timeout=60)


def test_cli_converts_agentex_contents_from_stdin() -> None:
    stdin = json.dumps([{"author": "user", "content": "hi"}, {"author": "agent", "summary": ["s"]}]).encode()
    proc = run("--from", "agentex", "--to", "vercel", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [
        {"id": "msg-1", "role": "user", "parts": [{"type": "text", "text": "hi"}]},
        {"id": "msg-2", "role": "assistant", "parts": [{"type": "reasoning", "text": "s"}]},
    ]


def test_cli_rejects_bad_agentex_input_with_one_line_naming_the_field() -> None:
    proc = run(
        "--from", "agentex", "--to", "agenta", stdin=b'[{"type": "data", "author": "user", "data": [1]}]'
    )
    assert proc.returncode == 2
    assert b"messages[0].data" in proc.stderr
    assert proc.stderr.count(b"\n") == 1
