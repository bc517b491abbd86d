"""`turnwire convert` with AG-UI and OpenAI as a user runs it: the installed entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from agui_checks import validate_message

TURNWIRE = str(Path(sys.executable).parent / "turnwire")
FORMATS = ("agenta", "vercel", "agentex", "agui", "openai")


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([TURNWIRE, *args], input=stdin, capture_output=True, timeout=60)


def example(name: str) -> list:
    return json.loads(resources.files("turnwire.examples").joinpath(f"{name}.json").read_text("utf-8"))


@pytest.mark.parametrize("fmt", ["agui", "openai"])
def test_bundled_example_converts_to_itself_unchanged(fmt: str) -> None:
    proc = run("convert", "--from", fmt, "--to", fmt, "--example", f"{fmt}-conversation")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == example(f"{fmt}-conversation")


@pytest.mark.parametrize("target", FORMATS)
@pytest.mark.parametrize("source", ["agui", "openai"])
def test_bundled_example_converts_to_every_format(source: str, target: str) -> None:
    proc = run("convert", "--from", source, "--to", target, "--example", f"{source}-conversation")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out
    if target == "agui":
        for message in out:
            validate_message(message)


def test_vercel_to_agui_keeps_calls_results_and_decisions() -> None:
    proc = run("convert", "--from", "vercel", "--to", "agui", "--example", "vercel-conversation")
    out = json.loads(proc.stdout)
    calls = [c["id"] for m in out if m["role"] == "assistant" for c in m.get("toolCalls", [])]
    results = [m["toolCallId"] for m in out if m["role"] == "tool"]
    assert "call_rm_1" in calls and "call_rm_1" in results
    decision = next(m for m in out if m["role"] == "tool" and m["toolCallId"] == "call_rm_1")
    assert json.loads(decision["content"])["approved"] is True


def test_bad_agui_input_exits_2_naming_the_field() -> None:
    proc = run(
        "convert", "--from", "agui", "--to", "vercel", stdin=b'[{"id": "t", "role": "tool", "content": "x"}]'
    )
    assert proc.returncode == 2
    assert b"messages[0].toolCallId" in proc.stderr
