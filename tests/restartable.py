"""PostgreSQL and Redis servers a test can kill, stop and start again on the same port (the
fault tests: ``tests/faults``, ``tests/integration/pubsub_redis``). ``services`` starts servers
that live for the whole session; these belong to one test module and are torn down with it."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import signal
import subprocess
import tempfile

from services import _pg_bin, _wait_port, free_port


class RedisProcess:
    """A Redis server without persistence: ``kill()`` (SIGKILL) loses everything it held, as a
    crashed cache does; ``start()`` brings an empty one back on the same port."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        exe = shutil.which("redis-server")
        if not exe:
            raise RuntimeError("Redis is not installed: run `make system-deps` (Debian package redis-server)")
        self.proc = subprocess.Popen(
            [exe, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
            self.proc = None

    def __enter__(self) -> RedisProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()


class PostgresProcess:
    """A throwaway PostgreSQL cluster that can be stopped (``-m immediate``: as a crash) and
    started again on the same port with its data."""

    def __init__(self) -> None:
        self.bindir = _pg_bin()
        self.root = tempfile.mkdtemp(prefix="turnwire-pgf-")
        self.data = os.path.join(self.root, "data")
        self.port = free_port()
        self.url = f"postgresql+asyncpg://postgres@127.0.0.1:{self.port}/postgres"
        self.prefix: list[str] = []
        if os.geteuid() == 0:  # postgres refuses to run as root
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self._run(f"{self.bindir}/initdb", "-D", self.data, "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def _run(self, *args: str) -> None:
        subprocess.run([*self.prefix, *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        opts += " -c max_connections=200"
        log = os.path.join(self.root, "log")
        self._run(f"{self.bindir}/pg_ctl", "-D", self.data, "-o", opts, "-l", log, "-w", "start")
        _wait_port(self.port)

    def stop(self) -> None:
        """Stop at once, as a crash would (open connections are cut, nothing is checkpointed)."""
        self._run(f"{self.bindir}/pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop")

    def __enter__(self) -> PostgresProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.root, ignore_errors=True)
