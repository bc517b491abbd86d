"""Schemathesis against the served OpenAPI document: no 5xx, every response as documented.

Both generation modes run (schema-valid and schema-breaking requests), each with an Accept header
drawn from the types we serve, types we do not, and q-value mixes.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator

import pytest
import schemathesis
from fuzz_app import live_fuzz_server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.generation.modes import GenerationMode

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
OPERATIONS = [
    ("/invoke", "POST"),
    ("/agents/{name}/invoke", "POST"),
    ("/invoke/{session_id}/stream", "GET"),
    ("/agents/{name}/invoke/{session_id}/stream", "GET"),
    ("/catalog/types/", "GET"),
    ("/catalog/types/{ag_type}", "GET"),
    ("/api/workflows/catalog/types/{ag_type}", "GET"),
    ("/health", "GET"),
    ("/agui", "POST"),
    ("/agents/{name}/agui", "POST"),
    ("/v1/chat/completions", "POST"),
    ("/v1/models", "GET"),
    ("/v1/responses", "POST"),
    ("/v1/responses/{response_id}", "GET"),
    ("/v1/responses/{response_id}/input_items", "GET"),
]
BODIES = ("invoke", "agui", "/v1/chat/completions", "/v1/responses")
ACCEPTS = st.sampled_from(
    [
        "application/json",
        "text/event-stream",
        "application/x-ndjson",
        "application/jsonl",
        "*/*",
        "text/html",
        "application/json;q=0.1, text/event-stream",
        "text/*;q=0",
    ]
)
STATUSES: collections.Counter[int] = collections.Counter()


@pytest.fixture(scope="module")
def schema() -> Iterator[schemathesis.BaseSchema]:
    """The OpenAPI document as the live server serves it (requests go over real HTTP)."""
    with live_fuzz_server() as url:
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")


@pytest.mark.parametrize(
    ("path", "method", "mode"),
    [(path, method, GenerationMode.POSITIVE) for path, method in OPERATIONS]
    # only the turn routes have inputs a request can get wrong
    + [(path, method, GenerationMode.NEGATIVE) for path, method in OPERATIONS if path.endswith(BODIES)],
)
def test_api_never_5xx_and_matches_its_schema(
    schema: schemathesis.BaseSchema, path: str, method: str, mode: GenerationMode
) -> None:
    operation = schema[path][method]

    @given(case=operation.as_strategy(mode), accept=ACCEPTS)
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(case: schemathesis.Case, accept: str) -> None:
        if path.endswith("invoke"):
            case.headers = {**(case.headers or {}), "accept": accept}
        response = case.call()
        STATUSES[response.status_code] += 1
        case.validate_response(response, checks=CHECKS)

    run()


def test_the_fuzz_reached_both_success_and_refusals() -> None:
    """Guards the guard: the runs above must have produced successes and each kind of refusal."""
    assert {200, 406} <= set(STATUSES), STATUSES
    assert set(STATUSES) & {400, 422}, STATUSES
    assert all(code < 500 for code in STATUSES), STATUSES
