"""With API keys, every route of the OpenAPI document but ``/health`` answers a caller without a
valid key 401 with ``WWW-Authenticate: Bearer`` and a body naming ``["header", "authorization"]`` —
in the Agentex error shape on the Agentex routes, FastAPI's ``detail`` list everywhere else.

The routes are read from the served app's own OpenAPI document, so a route added later is checked
without touching this test; a family missing from it (say, every Agentex route) fails the counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from services import serve_app
from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_app

KEY = "routes-key-" + "r" * 20
OPEN = {("GET", "/health"), ("GET", "/health/ready")}  # probes: a load balancer has no key
AGENTEX_TAGS = {"agentex messages", "agentex tasks", "agentex agents", "agentex spans", "conversations"}
# Without a key, a caller learns nothing: not whether a body is valid, nor whether an id exists.
WITHOUT_KEY: dict[str, dict[str, str]] = {
    "no header": {},
    "unknown key": {"authorization": "Bearer " + "u" * 32},
    "not bearer": {"authorization": f"Basic {KEY}"},
}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, dict[str, Any]]]:
    home: Path = tmp_path_factory.mktemp("unauthorized")
    settings = Settings(
        api_keys=f"ops:{KEY}",
        db_url=f"sqlite:///{home / 'store.db'}",
        approval_secret_file=str(home / "secret"),
    )
    app = create_app(builtin_agents(), settings=settings)
    with serve_app(app) as url:
        yield url, httpx.get(f"{url}/openapi.json").json()


def operations(spec: dict[str, Any]) -> list[tuple[str, str, set[str]]]:
    return [
        (method.upper(), path, set(op.get("tags") or []))
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
    ]


def concrete(path: str) -> str:
    """The path with every ``{param}`` filled in: an id that exists nowhere."""
    return re.sub(r"\{[^}]+\}", "no-such-id", path)


def test_the_document_lists_every_route_family(served: tuple[str, dict[str, Any]]) -> None:
    _, spec = served
    ops = operations(spec)
    agentex = [op for op in ops if op[2] & AGENTEX_TAGS]
    assert len(agentex) >= 21  # the 21 of issue 24, and any added since
    families = {tag for _, _, tags in ops for tag in tags}
    assert families >= {"invoke", "chat", "agui", "openai", "catalog", *AGENTEX_TAGS}


@pytest.mark.parametrize("how", list(WITHOUT_KEY))
def test_every_route_refuses_a_caller_without_a_valid_key(
    how: str, served: tuple[str, dict[str, Any]]
) -> None:
    url, spec = served
    checked = 0
    with httpx.Client(base_url=url, timeout=30, headers=WITHOUT_KEY[how]) as http:
        for method, path, tags in operations(spec):
            if (method, path) in OPEN:
                continue
            response = http.request(method, concrete(path))
            where = f"{method} {path} ({how})"
            assert response.status_code == 401, (where, response.text)
            assert response.headers.get("www-authenticate") == "Bearer", where
            assert response.headers["content-type"].startswith("application/json"), where
            body = response.json()
            if tags & AGENTEX_TAGS:  # the reference's error shape, as every other Agentex error
                assert set(body) == {"message", "code", "data"}, (where, body)
                assert body["code"] == 401 and body["message"], (where, body)
                assert body["data"][0]["loc"] == ["header", "authorization"], (where, body)
            else:
                assert set(body) == {"detail"}, (where, body)
                assert body["detail"][0]["loc"] == ["header", "authorization"], (where, body)
                assert body["detail"][0]["type"] == "unauthorized", (where, body)
            checked += 1
    assert checked == len(operations(spec)) - len(OPEN)


def test_the_key_opens_the_same_routes(served: tuple[str, dict[str, Any]]) -> None:
    """The refusals above are the key's doing: with it, no route answers 401."""
    url, spec = served
    with httpx.Client(base_url=url, timeout=30, headers={"authorization": f"Bearer {KEY}"}) as http:
        for method, path, _ in operations(spec):
            if method == "GET" and path.endswith("/stream"):
                continue  # a live stream of a task that does not exist: 404 or 204, checked elsewhere
            response = http.request(method, concrete(path))
            assert response.status_code != 401, (method, path, response.text)
