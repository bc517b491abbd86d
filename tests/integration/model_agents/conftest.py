"""Real turnwire servers whose agents are model adapters: the OpenAI-compatible agent on the replaying
fake server (tests/openai_fake.py), and pydantic-ai agents on offline models. A warm server and a cold
one (no session pool) share one approval secret, so the same turn can be compared on both."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parents[1] / "approvals"))

from model_doors import Doors, run_doors

from openai_fake import FakeOpenAI, fake_openai


@pytest.fixture(scope="session")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


@pytest.fixture(scope="session")
def warm(fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Doors]:
    with run_doors(fake, tmp_path_factory.mktemp("model-doors")) as doors:
        yield doors


@pytest.fixture(scope="session")
def cold(fake: FakeOpenAI, warm: Doors) -> Iterator[Doors]:
    with run_doors(fake, warm.home, pool_max=0) as doors:
        yield doors


@pytest.fixture(scope="session")
def pyd_warm(fake: FakeOpenAI, warm: Doors) -> Iterator[Doors]:
    with run_doors(fake, warm.home, default="pydantic") as doors:
        yield doors


@pytest.fixture(scope="session")
def pyd_cold(fake: FakeOpenAI, warm: Doors) -> Iterator[Doors]:
    with run_doors(fake, warm.home, pool_max=0, default="pydantic") as doors:
        yield doors
