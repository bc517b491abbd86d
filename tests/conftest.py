from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator

import pytest
from hypothesis import settings

from services import postgres_server, redis_server

# CI (CI=true, as .ci/run's environment sets it) runs the property tests on a fixed set of
# examples, so a submission's CI result does not depend on the draw; a developer's run draws new
# examples each time, which is how the generators keep finding new cases.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

# turnwire keeps its default database and approval secret under $XDG_DATA_HOME; tests (and the
# servers they start as subprocesses) get a private one instead of the user's home.
os.environ["XDG_DATA_HOME"] = _data_home = tempfile.mkdtemp(prefix="turnwire-test-data-")
atexit.register(shutil.rmtree, _data_home, ignore_errors=True)


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
