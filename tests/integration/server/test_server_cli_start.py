"""`turnwire serve` as a new user meets it: every configuration mistake is one line and exit code 2
before anything is printed on stdout, the banner says where everything is, and agents import from
the current directory (or --app-dir). Real subprocesses, real sockets, real SQLite and Redis."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from services import free_port

TURNWIRE = [sys.executable, "-c", "from turnwire.cli import app; app()"]

SHOUT = textwrap.dedent(
    """
    from turnwire.model import MessageDelta, MessageEnd, MessageStart, ToolCall, ToolResult
    from turnwire.runtime import TurnContext


    async def shout(ctx: TurnContext):
        text = ctx.last_user_text()
        yield ToolCall(id="call_1", name="upper", input={"text": text})
        yield ToolResult(id="call_1", output=text.upper())
        yield MessageStart(id="m1")
        for word in text.upper().split():
            yield MessageDelta(id="m1", delta=word + " ")
        yield MessageEnd(id="m1")
    """
)


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNWIRE_")}
    return {**env, "XDG_DATA_HOME": str(tmp_path / "data"), **extra}


def _run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TURNWIRE, "serve", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=_env(tmp_path, **env),
        cwd=tmp_path,
    )


@pytest.mark.parametrize(
    ("args", "env", "needle"),
    [
        (["--port", "99999"], {}, "--port: 99999 is not a TCP port; use a number from 1 to 65535"),
        (["--port", "0"], {}, "--port: 0 is not a TCP port"),
        (["--db", "mysql://x/y"], {}, "--db: mysql:// databases are not supported; use sqlite:///"),
        (["--db", "/nonexistent/dir/x.db"], {}, "--db: folder /nonexistent/dir does not exist"),
        (["--redis", "redis://127.0.0.1:1/0"], {}, "--redis: cannot reach redis://127.0.0.1:1/0"),
        ([], {"TURNWIRE_MAX_BODY_BYTES": "abc"}, "TURNWIRE_MAX_BODY_BYTES: 'abc' is not valid"),
        (
            [],
            {"TURNWIRE_VERCEL_CLIENT_VERSION": "latest"},
            "TURNWIRE_VERCEL_CLIENT_VERSION: 'latest' is not valid",
        ),
        ([], {"TURNWIRE_DB_URL": "mysql://x/y"}, "TURNWIRE_DB_URL: mysql:// databases are not supported"),
        ([], {"TURNWIRE_KEEPALIVE_SECONDS": "soon"}, "TURNWIRE_KEEPALIVE_SECONDS: 'soon' is not a number"),
        ([], {"XDG_DATA_HOME": "/proc/no-such/x"}, "--db: cannot create the default store folder"),
        (["--vercel-client-version", "4"], {}, "--vercel-client-version: '4' is not valid"),
        (["--agent", "x=json:dumps"], {}, "--agent x: agent spec 'json:dumps' names dumps"),
        (["--agent", "x=os:system"], {}, "--agent x: agent spec 'os:system' names system"),
        (["--agent", "nope"], {}, "expected NAME=module:attr"),
        (
            ["--agent", "r=a2a:ftp://x"],
            {},
            "--agent r: agent spec 'a2a:ftp://x': 'ftp://x' is not an http(s) URL",
        ),
        (
            ["--a2a-push-allow", "hooks.example.com/*"],
            {},
            "--a2a-push-allow: ('hooks.example.com/*',) is not",
        ),
        ([], {"TURNWIRE_A2A_PUSH_ALLOW": "hooks/*"}, "TURNWIRE_A2A_PUSH_ALLOW: 'hooks/*' is not valid"),
        (["--default-agent", "ghost"], {}, "--default-agent 'ghost' is not an agent"),
        (["--log-level", "loud"], {}, "--log-level: 'loud' is not a level"),
        (["--workers", "0"], {}, "--workers: 0 is not a number of processes"),
        (["--app-dir", "/nonexistent/dir"], {}, "--app-dir: /nonexistent/dir is not a folder"),
    ],
)
def test_configuration_errors_are_one_line_and_exit_2(
    tmp_path: Path, args: list[str], env: dict[str, str], needle: str
) -> None:
    proc = _run(args, tmp_path, **env)
    assert proc.returncode == 2, proc
    assert proc.stdout == ""  # no banner for a server that never served
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("turnwire serve: ")
    assert needle in lines[0], lines[0]


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    proc = _run(["--db", "mysql://x/y", "--debug"], tmp_path)
    assert proc.returncode == 2
    assert "Traceback (most recent call last)" in proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("turnwire serve: --db: mysql://")


def test_a_taken_port_fails_before_the_banner(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = _run(["--port", str(port)], tmp_path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert f"--port: 127.0.0.1:{port} is already in use" in proc.stderr


@contextlib.contextmanager
def _serving(tmp_path: Path, *args: str, cwd: Path | None = None) -> Iterator[tuple[str, list[str]]]:
    """A `turnwire serve` child; yields (base URL, banner lines) once /health answers."""
    port = free_port()
    proc = subprocess.Popen(
        [*TURNWIRE, "serve", "--port", str(port), "--log-level", "warning", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(tmp_path),
        cwd=cwd or tmp_path,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        assert proc.stdout is not None
        banner: list[str] = []
        while not banner or not banner[-1].lstrip().startswith("process"):
            line = proc.stdout.readline()
            if not line:
                raise AssertionError("serve exited: " + (proc.stderr.read() if proc.stderr else ""))
            banner.append(line.rstrip("\n"))
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.1)
        yield url, banner
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _reply(url: str, text: str) -> str:
    body = {"data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    r = httpx.post(url + "/invoke", json=body, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["data"]["outputs"]["messages"][-1]["content"]


def test_the_readme_agent_serves_from_the_current_directory(tmp_path: Path) -> None:
    (tmp_path / "my_app").mkdir()
    (tmp_path / "my_app" / "__init__.py").write_text("")
    (tmp_path / "my_app" / "agents.py").write_text(SHOUT)
    with _serving(tmp_path, "--agent", "shout=my_app.agents:shout", "--default-agent", "shout") as (url, _):
        assert _reply(url, "hi there") == "HI THERE "
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    args = ("--app-dir", str(tmp_path), "--agent", "shout=my_app.agents:shout", "--default-agent", "shout")
    with _serving(tmp_path, *args, cwd=elsewhere) as (url, _):
        assert _reply(url, "again") == "AGAIN "


def test_the_banner_says_where_everything_is(tmp_path: Path, redis_url: str) -> None:
    db = tmp_path / "store" / "chats.db"
    db.parent.mkdir()
    with _serving(tmp_path, "--db", str(db), "--redis", redis_url) as (url, banner):
        text = "\n".join(banner)
        assert banner[0].startswith("turnwire ") and url in banner[0]
        assert f"{url}/invoke" in text and f"{url}/chat" in text
        assert f"{url}/docs" in text
        assert f"store    {db}" in text
        assert f"redis    {redis_url}" in text
        assert "agents   demo (default)" in text
        assert "auth     none" in text
    with _serving(tmp_path) as (url, banner):
        text = "\n".join(banner)
        assert f"store    {tmp_path / 'data' / 'turnwire' / 'turnwire.db'}" in text
        assert "redis    none" in text


def test_workers_share_one_port(tmp_path: Path) -> None:
    db = tmp_path / "w.db"
    with _serving(tmp_path, "--workers", "2", "--db", str(db)) as (url, banner):
        assert "2 workers" in banner[-1]
        assert [_reply(url, f"hello {i}") for i in range(4)] == [f"You said: hello {i}" for i in range(4)]


def test_reload_picks_up_a_changed_agent(tmp_path: Path) -> None:
    (tmp_path / "live_agent.py").write_text(
        "from turnwire.model import MessageEvent\n\nasync def agent(ctx):\n    yield MessageEvent('v1')\n"
    )
    args = ("--reload", "--agent", "a=live_agent:agent", "--default-agent", "a")
    with _serving(tmp_path, *args) as (url, banner):
        assert "reload" in banner[-1]
        assert _reply(url, "x") == "v1"
        (tmp_path / "live_agent.py").write_text(
            "from turnwire.model import MessageEvent\n\nasync def agent(ctx):\n    yield MessageEvent('v2')\n"
        )
        deadline = time.monotonic() + 30
        while True:
            with contextlib.suppress(httpx.TransportError, AssertionError):
                if _reply(url, "x") == "v2":
                    break
            assert time.monotonic() < deadline, "the server did not reload"
            time.sleep(0.3)


def test_log_level_decides_what_the_server_logs(tmp_path: Path) -> None:
    logs = {}
    for level in ("info", "warning"):
        port = free_port()
        proc = subprocess.Popen(
            [*TURNWIRE, "serve", "--port", str(port), "--log-level", level],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,  # uvicorn's access log goes to stdout, the rest to stderr
            text=True,
            env=_env(tmp_path),
            cwd=tmp_path,
        )
        try:
            deadline = time.monotonic() + 30
            while True:
                with contextlib.suppress(httpx.TransportError):
                    if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                        break
                assert time.monotonic() < deadline and proc.poll() is None
                time.sleep(0.1)
        finally:
            proc.send_signal(signal.SIGINT)
            logs[level] = proc.communicate(timeout=15)[0]
    assert '"GET /health HTTP/1.1" 200' in logs["info"]
    assert "GET /health" not in logs["warning"] and "INFO:" not in logs["warning"]
    assert "serving http://127.0.0.1:" in logs["warning"]  # the banner is not a log line
