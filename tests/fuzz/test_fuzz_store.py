"""Schemathesis against the routes that read and write the store, on SQLite and PostgreSQL: no
request, schema-valid or schema-breaking, gets a 5xx. Some tasks and messages exist beforehand, so
generated ids sometimes hit real rows (the fuzzer also reuses the example values)."""

from __future__ import annotations

import collections
import uuid
from collections.abc import Iterator

import httpx
import pytest
import schemathesis
from fuzz_app import crash, echo
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error
from schemathesis.generation.modes import GenerationMode

from services import serve_app
from store_databases import BACKENDS, fresh_database
from turnwire.server import Settings, create_app

OPERATIONS = [
    ("/messages", "GET"),
    ("/messages", "POST"),
    ("/messages/batch", "POST"),
    ("/messages/batch", "PUT"),
    ("/messages/paginated", "GET"),
    ("/messages/{message_id}", "GET"),
    ("/messages/{message_id}", "PUT"),
    ("/tasks", "GET"),
    ("/tasks/{task_id}", "GET"),
    ("/tasks/{task_id}", "DELETE"),
    ("/tasks/name/{task_name}", "GET"),
    ("/tasks/name/{task_name}", "DELETE"),
    ("/tasks/{task_id}/messages", "GET"),
    ("/tasks/name/{task_name}/messages", "GET"),
    ("/agents/name/{agent_name}/rpc", "POST"),
    ("/agents/{agent_id}/rpc", "POST"),
    ("/invoke", "POST"),
    ("/chat", "POST"),
]
STATUSES: collections.Counter[int] = collections.Counter()


@pytest.fixture(scope="module", params=BACKENDS)
def schema(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[schemathesis.BaseSchema]:
    pg = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    db_url = fresh_database(request.param, tmp_path_factory.mktemp("fuzz-store"), pg)
    settings_ = Settings(db_url=db_url, max_body_bytes=256 * 1024, keepalive_seconds=0)
    app = create_app({"echo": echo, "crash": crash}, default_agent="echo", settings=settings_)
    with serve_app(app) as url:
        _seed(url)
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")


def _seed(url: str) -> None:
    with httpx.Client(base_url=url, timeout=30) as http:
        for name in ("a", "0", "string", uuid.uuid4().hex):
            created = http.post(
                "/agents/name/echo/rpc", json={"method": "task/create", "params": {"name": name}}
            )
            task = created.json()["result"]["id"]
            http.post(
                "/messages",
                json={"task_id": task, "content": {"type": "text", "author": "user", "content": "hi"}},
            )


# Only a body or query parameters can be broken; a path id is any string (limits are tested apart).
BREAKABLE = {
    (p, m)
    for p, m in OPERATIONS
    if m in ("POST", "PUT") or p in ("/messages", "/messages/paginated", "/tasks")
}


@pytest.mark.parametrize(
    ("path", "method", "mode"),
    [(path, method, GenerationMode.POSITIVE) for path, method in OPERATIONS]
    + [(path, method, GenerationMode.NEGATIVE) for path, method in OPERATIONS if (path, method) in BREAKABLE],
)
def test_store_routes_never_5xx(
    schema: schemathesis.BaseSchema, path: str, method: str, mode: GenerationMode
) -> None:
    operation = schema[path][method]

    @given(case=operation.as_strategy(mode))
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(case: schemathesis.Case) -> None:
        response = case.call(timeout=30)
        STATUSES[response.status_code] += 1
        case.validate_response(response, checks=[not_a_server_error])

    run()


def test_the_store_fuzz_reached_successes_and_refusals() -> None:
    """Guards the guard: the runs above answered both successes and refusals, and no 5xx."""
    assert 200 in STATUSES and {400, 404, 422} <= set(STATUSES), STATUSES
    assert all(code < 500 for code in STATUSES), STATUSES
