"""`turnwire convert` as a user runs it: a subprocess of the installed entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

TURNWIRE = str(Path(sys.executable).parent / "turnwire")


def run(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([TURNWIRE, *args], input=stdin, capture_output=True, timeout=60)


def example_value() -> list:
    text = resources.files("turnwire.examples").joinpath("agenta-conversation.json").read_text("utf-8")
    return json.loads(text)


def test_bundled_example_converts_agenta_to_agenta_unchanged():
    proc = run("convert", "--from", "agenta", "--to", "agenta", "--example", "agenta-conversation")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == example_value()


def test_file_argument_is_read_and_output_is_pretty_utf8_json(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps([{"role": "user", "content": [{"type": "text", "text": "héllo ✓"}]}]), "utf-8")
    proc = run("convert", "--from", "agenta", "--to", "agenta", str(path))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [{"role": "user", "content": "héllo ✓"}]
    assert "héllo ✓".encode() in proc.stdout
    assert b"\n  " in proc.stdout


def test_stdin_is_read_when_no_file_is_given():
    stdin = json.dumps([{"role": "tool", "content": "ok", "tool_call_id": "c1", "is_error": False}]).encode()
    proc = run("convert", "--from", "agenta", "--to", "agenta", stdin=stdin)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == [
        {
            "role": "tool",
            "content": [{"type": "tool_result", "toolCallId": "c1", "output": "ok", "isError": False}],
        }
    ]


def test_format_names_are_case_insensitive():
    proc = run("convert", "--from", "Agenta", "--to", "AGENTA", stdin=b"[]")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


@pytest.mark.parametrize(
    ("args", "stdin", "needle"),
    [
        (("--from", "agenta", "--to", "agenta"), b"[{", b"not valid JSON"),
        (("--from", "agenta", "--to", "agenta"), b'{"role": "user"}', b"must be a JSON array"),
        (("--from", "agenta", "--to", "agenta"), b'[{"role": "user", "content": 3}]', b"messages[0].content"),
        (
            ("--from", "agenta", "--to", "agenta"),
            b'[{"role": "user", "content": ["a", 7]}]',
            b"messages[0].content[1]",
        ),
        (("--from", "nope", "--to", "agenta"), b"[]", b"unknown format 'nope'"),
        (("--from", "agenta", "--to", "agenta", "--example", "missing"), b"", b"unknown example 'missing'"),
        (
            ("--from", "agenta", "--to", "agenta", "/nonexistent/in.json"),
            b"",
            b"cannot read /nonexistent/in.json",
        ),
    ],
)
def test_bad_input_exits_2_with_one_line_on_stderr(args, stdin, needle):
    proc = run("convert", *args, stdin=stdin)
    assert proc.returncode == 2
    assert proc.stdout == b""
    assert needle in proc.stderr
    assert proc.stderr.count(b"\n") == 1
    assert b"Traceback" not in proc.stderr
