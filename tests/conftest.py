from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

import turnwire.server.settings as _settings
from services import postgres_server, redis_server

# CI (CI=true, as .ci/run's environment sets it) runs the property tests on a fixed set of
# examples, so a submission's CI result does not depend on the draw; a developer's run draws new
# examples each time, which is how the generators keep finding new cases.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# turnwire keeps its approval secret and chat copies under $XDG_DATA_HOME; tests (and the
# servers they start as subprocesses) get a private one instead of the user's home.
os.environ["XDG_DATA_HOME"] = _data_home = tempfile.mkdtemp(prefix="turnwire-test-data-")
atexit.register(shutil.rmtree, _data_home, ignore_errors=True)

# The default store is ./.turnwire/turnwire.db of the working directory: the apps tests build in
# this process (without a db_url) keep theirs in the private folder too, not in the checkout.
# Servers started as subprocesses run in their own folder (services.turnwire_process).
_store_path = _settings.default_store_path


def _private_store_path(cwd: str | os.PathLike[str] | None = None) -> Path:
    return _store_path(_data_home if cwd is None else cwd)


_settings.default_store_path = _private_store_path


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """SQLAlchemy URL of a real PostgreSQL server started for this test session."""
    with postgres_server() as url:
        yield url


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a real Redis server started for this test session."""
    with redis_server() as url:
        yield url


@pytest.fixture
def anyio_backend() -> str:
    """Async tests run on asyncio (the loop the server runs on)."""
    return "asyncio"
