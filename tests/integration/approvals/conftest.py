"""Fixtures: a warm server and a cold one (no pool) sharing one approval secret file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from approvals_server import Server, run_server


@pytest.fixture(scope="session")
def secret_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("approvals") / "secret"


@pytest.fixture(scope="session")
def warm(secret_file: Path) -> Iterator[Server]:
    with run_server(secret_file) as server:
        yield server


@pytest.fixture(scope="session")
def cold(secret_file: Path) -> Iterator[Server]:
    with run_server(secret_file, pool_max=0) as server:
        yield server
