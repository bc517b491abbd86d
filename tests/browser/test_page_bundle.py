"""The committed page bundle (src/turnwire/server/static) is exactly what web/ builds."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
STATIC = ROOT / "src" / "turnwire" / "server" / "static"


def _web_ready() -> str:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed: the page bundle check needs node >= 20 and npm")
    if not (WEB / "node_modules" / "esbuild" / "package.json").exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is not installed: cannot run `npm ci` in web/")
        done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=WEB, capture_output=True, text=True)
        if done.returncode != 0:
            pytest.fail(f"npm ci failed in web/:\n{done.stdout}\n{done.stderr}")
    return node


@pytest.mark.node
def test_the_committed_bundle_is_built_from_the_sources(tmp_path: Path) -> None:
    node = _web_ready()
    done = subprocess.run(
        [node, "build.mjs", "--out", str(tmp_path)], cwd=WEB, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    built = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in STATIC.iterdir())
    assert built == committed == ["THIRD_PARTY.txt", "index.html", "page.js", "style.css"]
    stale = [name for name in built if (tmp_path / name).read_bytes() != (STATIC / name).read_bytes()]
    assert stale == [], f"{stale} differ from what web/ builds: run `make page` and commit the result"


@pytest.mark.node
def test_the_committed_swagger_ui_is_the_locked_package(tmp_path: Path) -> None:
    node = _web_ready()
    done = subprocess.run(
        [node, "vendor-docs.mjs", "--out", str(tmp_path)], cwd=WEB, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    swagger = ROOT / "src" / "turnwire" / "server" / "swagger"
    built = sorted(p.name for p in tmp_path.iterdir())
    assert built == sorted(p.name for p in swagger.iterdir())
    stale = [name for name in built if (tmp_path / name).read_bytes() != (swagger / name).read_bytes()]
    assert stale == [], f"{stale} differ from swagger-ui-dist: run `make page` and commit the result"
