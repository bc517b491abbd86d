"""`make run` installs what the server imports and nothing else; `make test` adds the test tools."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]


def _dry_run(target: str, tmp_path: Path) -> list[str]:
    if shutil.which("make") is None:
        pytest.fail("make is not installed (Debian package make)")
    out = subprocess.run(
        ["make", "-n", target, f"VENV={tmp_path / 'venv'}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return [line for line in out.stdout.splitlines() if "pip install" in line and "--upgrade pip" not in line]


def test_make_run_installs_only_the_package(tmp_path: Path) -> None:
    installs = _dry_run("run", tmp_path)
    assert installs, "make run installs nothing"
    assert all(line.rstrip().endswith("install -q -e .") for line in installs), installs


def test_make_test_installs_the_dev_extra(tmp_path: Path) -> None:
    installs = _dry_run("test", tmp_path)
    assert any("'.[dev]'" in line for line in installs), installs
