"""``turnwire serve`` as a real child process, for tests that kill it."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

from services import turnwire_process as serve_process

HERE = Path(__file__).parent


@contextlib.contextmanager
def turnwire_process(
    db_url: str, home: Path, *extra_args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """Start ``turnwire serve --db db_url`` (demo, ``slow``, ``long`` and ``paced`` agents, then
    ``extra_args``; ``env`` added to the environment); yield (base URL, process)."""
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    agents = ("--agent", "slow=store_e2e_agents:slow", "--agent", "long=store_e2e_agents:long")
    agents += ("--agent", "paced=store_e2e_agents:paced")
    args = ("--db", db_url, "--keepalive", "0", *agents, *extra_args)
    with serve_process(home, *args, env={"PYTHONPATH": path, **(env or {})}) as running:
        yield running
