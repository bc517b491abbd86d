"""The fault suite: real ``turnwire serve`` processes on a PostgreSQL and a Redis of the suite's own
(``restartable``), which the tests kill, stop and start again. Every test here is marked ``faults``
(``pytest -m faults`` runs only them; ``-m 'not faults'`` leaves them out)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from pair import Node

from restartable import PostgresProcess, RedisProcess

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(item.fspath).parents:
            item.add_marker(pytest.mark.faults)


@pytest.fixture(scope="package")
def fault_pg() -> Iterator[PostgresProcess]:
    """A PostgreSQL the tests may stop and start again (its data kept)."""
    with PostgresProcess() as pg:
        yield pg


@pytest.fixture(scope="package")
def fault_redis() -> Iterator[RedisProcess]:
    """A Redis the tests may SIGKILL and start again (empty)."""
    with RedisProcess() as redis:
        yield redis


@pytest.fixture(scope="package")
def pair(
    fault_pg: PostgresProcess, fault_redis: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Node, Node]]:
    """Two servers on ``fault_pg`` and ``fault_redis``; a test that kills one starts it again."""
    a = Node(Path(tmp_path_factory.mktemp("a")), fault_pg, fault_redis)
    b = Node(Path(tmp_path_factory.mktemp("b")), fault_pg, fault_redis)
    a.start()
    b.start()
    yield a, b
    a.stop()
    b.stop()
