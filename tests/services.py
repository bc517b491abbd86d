"""Real PostgreSQL and Redis servers for the tests, started on loopback in a temporary folder.

Set ``TURNWIRE_TEST_PG_URL`` / ``TURNWIRE_TEST_REDIS_URL`` to use servers you already run.
A missing server binary fails the test run with a clear message; it is never a silent skip.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on 127.0.0.1:{port} after {timeout}s")


def _pg_bin() -> str:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return os.path.dirname(found[-1])
    initdb = shutil.which("initdb")
    if initdb:
        return os.path.dirname(initdb)
    raise RuntimeError(
        "PostgreSQL is not installed: run `make system-deps` (Debian package postgresql) "
        "or set TURNWIRE_TEST_PG_URL"
    )


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Yield a SQLAlchemy URL (``postgresql+asyncpg://…``) of a throwaway PostgreSQL server."""
    if url := os.environ.get("TURNWIRE_TEST_PG_URL"):
        yield url
        return
    bindir = _pg_bin()
    root = tempfile.mkdtemp(prefix="turnwire-pg-")
    data = os.path.join(root, "data")
    port = free_port()
    prefix: list[str] = []
    if os.geteuid() == 0:  # postgres refuses to run as root
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
        prefix = ["runuser", "-u", "postgres", "--"]
    run = lambda *args: subprocess.run(  # noqa: E731
        [*prefix, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    run(f"{bindir}/initdb", "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8")
    opts = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
    run(f"{bindir}/pg_ctl", "-D", data, "-o", opts, "-l", os.path.join(root, "log"), "-w", "start")
    try:
        _wait_port(port)
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{port}/postgres"
    finally:
        with contextlib.suppress(Exception):
            run(f"{bindir}/pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
        shutil.rmtree(root, ignore_errors=True)


@contextlib.contextmanager
def redis_server() -> Iterator[str]:
    """Yield the URL of a throwaway Redis server."""
    if url := os.environ.get("TURNWIRE_TEST_REDIS_URL"):
        yield url
        return
    exe = shutil.which("redis-server")
    if not exe:
        raise RuntimeError(
            "Redis is not installed: run `make system-deps` (Debian package redis-server) "
            "or set TURNWIRE_TEST_REDIS_URL"
        )
    port = free_port()
    proc = subprocess.Popen(
        [exe, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        _wait_port(port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@contextlib.contextmanager
def serve_app(app: object, *, lifespan: str = "auto", timeout: float = 20.0) -> Iterator[str]:
    """Run an ASGI ``app`` with uvicorn on 127.0.0.1 in a background thread; yield its base URL."""
    import threading

    import uvicorn

    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan=lifespan)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


@contextlib.contextmanager
def turnwire_process(
    home: str | os.PathLike[str], *args: str, env: dict[str, str] | None = None, timeout: float = 60.0
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A real ``turnwire serve`` child process on a free loopback port; yields (base URL, process).

    Its data dir (approval secret) and working directory (default SQLite store) is ``home``;
    ``args`` are extra ``serve`` options (e.g. ``--db``, ``--agent``) and ``env`` extra environment.
    Stopped with SIGTERM after.
    """
    import sys

    import httpx

    port = free_port()
    os.makedirs(home, exist_ok=True)  # the child starts in it
    full_env = {
        **os.environ,
        "XDG_DATA_HOME": str(home),
        "TURNWIRE_APPROVAL_SECRET_FILE": os.path.join(home, "secret"),
        **(env or {}),
    }
    cmd = [sys.executable, "-c", "from turnwire.cli import app; app()", "serve", "--port", str(port), *args]
    # Started from ``home``: its default store (``./.turnwire/``) is the test's, not the checkout's.
    proc = subprocess.Popen(cmd, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=home)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            if proc.poll() is not None:
                stderr = proc.stderr.read().decode() if proc.stderr else ""
                raise RuntimeError("turnwire serve exited:\n" + stderr[-3000:])
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(url + "/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"turnwire serve did not answer /health within {timeout} s")
            time.sleep(0.05)
        yield url, proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
