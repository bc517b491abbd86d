"""Running the Node conformance tests (the real `ai` npm package) from pytest.

A missing node or npm fails the test with a clear message; it is never a silent skip.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

import pytest

NODE_DIR = Path(__file__).parent / "conformance" / "node"


def node_ready() -> str:
    """The path of ``node``, with ``npm ci`` run in tests/conformance/node if it has not been."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the conformance tests need node >= 20 and npm on PATH")
    if not (NODE_DIR / "node_modules" / "ai" / "package.json").exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not installed: cannot run `npm ci` in tests/conformance/node")
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, capture_output=True, text=True
        )
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in {NODE_DIR}:\n{done.stdout}\n{done.stderr}")
    return node


def run_node_tests(test_file: str, env: Mapping[str, str], *, timeout: float = 300) -> int:
    """Run ``node --test test_file`` in tests/conformance/node; fail the pytest test with node's
    output unless every node test passed. Returns how many passed."""
    done = subprocess.run(
        [node_ready(), "--test", "--test-reporter=tap", test_file],
        cwd=NODE_DIR,
        env=dict(env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        failing = [line for line in done.stdout.splitlines() if line.lstrip().startswith("not ok")]
        pytest.fail(
            f"node --test {test_file} failed:\n"
            + "\n".join(failing)
            + "\n\n"
            + done.stdout[-20000:]
            + done.stderr[-5000:]
        )
    assert "# fail 0" in done.stdout, done.stdout[-3000:]
    return int(done.stdout.rsplit("# pass ", 1)[1].split()[0])
