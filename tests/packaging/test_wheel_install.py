"""The README's second install line, as a new user runs it: build the wheel (``python -m build``),
install it into a fresh venv, and ``turnwire serve`` from there serves the chat page with its assets.

Offline and fast: the wheel is built without build isolation (hatchling and build are dev
dependencies), installed with ``--no-deps --no-index``, and the fresh venv finds turnwire's
dependencies through a ``.pth`` line naming this interpreter's site-packages, which comes after
its own: the ``turnwire`` it imports is the wheel's, never the checkout."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import sysconfig
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services import free_port

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).resolve().parents[2]


def _run(*cmd: str | Path, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    done = subprocess.run(
        [str(c) for c in cmd], capture_output=True, text=True, timeout=120, env=env, cwd=cwd
    )
    assert done.returncode == 0, f"{cmd} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    _run(sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", out, ROOT, env=env, cwd=ROOT)
    (built,) = out.glob("turnwire-*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("venv") / "fresh"
    _run(sys.executable, "-m", "venv", "--without-pip", home)
    python = home / "bin" / "python"
    _run(sys.executable, "-m", "pip", "--python", python, "install", "-q", "--no-deps", "--no-index", wheel)
    purelib = _run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    # The dependencies (fastapi, uvicorn, ...) from this interpreter, after the venv's own packages.
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "zz_turnwire_test_deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    return home


def test_the_wheel_holds_the_page(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    for asset in ("index.html", "page.js", "style.css"):
        assert f"turnwire/server/static/{asset}" in names, names
    entry_points = zipfile.ZipFile(wheel).read("turnwire-0.1.0.dist-info/entry_points.txt").decode()
    assert "turnwire = turnwire.cli:app" in entry_points


@contextlib.contextmanager
def _serving(venv: Path, cwd: Path) -> Iterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH" and not k.startswith("TURNWIRE_")}
    proc = subprocess.Popen(
        [str(venv / "bin" / "turnwire"), "serve", "--port", str(port)],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            assert time.monotonic() < deadline, "turnwire serve from the wheel did not answer /health"
            time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_turnwire_serve_from_the_installed_wheel_serves_the_page(venv: Path, tmp_path: Path) -> None:
    where = _run(venv / "bin" / "python", "-c", "import turnwire; print(turnwire.__file__)", env={})
    assert where.startswith(str(venv)), where  # the wheel's turnwire, not the checkout's
    with _serving(venv, tmp_path) as url:
        page = httpx.get(url + "/", timeout=10)
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assets = re.findall(r'(?:href|src)="(page/[^"?]+)', page.text)
        assert {"page/page.js", "page/style.css"} <= set(assets), page.text
        static = Path(where.strip()).parent / "server" / "static"
        for asset in assets:
            r = httpx.get(f"{url}/{asset}", timeout=10)
            assert r.status_code == 200, asset
            assert r.content == (static / asset.removeprefix("page/")).read_bytes(), asset
        body = {"data": {"inputs": {"messages": [{"role": "user", "content": "hello"}]}}}
        r = httpx.post(url + "/invoke", json=body, timeout=20)
        assert r.json()["data"]["outputs"]["messages"][-1]["content"] == "You said: hello"
    assert (tmp_path / ".turnwire" / "turnwire.db").is_file()  # the default store of that folder
