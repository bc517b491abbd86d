"""Hypothesis-made JSON-RPC requests, valid and broken, posted to a live A2A door with a store
(SQLite and PostgreSQL): never a 5xx, and every answer a JSON-RPC answer (one ``result`` or one
``error`` with an integer code), also every event of a stream."""

from __future__ import annotations

import collections
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from services import serve_app
from store_databases import BACKENDS, fresh_database
from turnwire.agents import builtin_agents
from turnwire.server import Settings, create_app

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False)
    | st.text(max_size=8)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)
METHODS = st.sampled_from(
    [
        "SendMessage",
        "SendStreamingMessage",
        "GetTask",
        "ListTasks",
        "CancelTask",
        "SubscribeToTask",
        "message/send",
        "message/stream",
        "tasks/get",
        "tasks/cancel",
        "tasks/resubscribe",
        "GetExtendedAgentCard",
        "CreateTaskPushNotificationConfig",
        "nope",
    ]
)
COMMANDS = st.sampled_from(
    ["hi", "weather in Oslo", "count to 2", "delete f.txt", "ask me", "fail", "silent"]
)
PART = st.one_of(
    COMMANDS.map(lambda t: {"text": t}),
    st.fixed_dictionaries({"data": JSON}),
    st.fixed_dictionaries(
        {"data": st.fixed_dictionaries({"approved": st.booleans(), "interactionToken": st.text(max_size=12)})}
    ),
    st.fixed_dictionaries(
        {"url": st.text(max_size=10), "mediaType": st.sampled_from(["image/png", "text/plain", 3])}
    ),
    st.fixed_dictionaries({"raw": st.text(max_size=10)}),
    st.fixed_dictionaries({"kind": st.sampled_from(["text", "file", "data"]), "text": st.text(max_size=5)}),
    st.dictionaries(
        st.sampled_from(["text", "raw", "url", "data", "mediaType", "filename"]), JSON, max_size=3
    ),
    JSON,
)
TASK_IDS = st.sampled_from(["", "x~y", "bad id", "a" * 200, "ctx~" + "f" * 32]) | st.text(max_size=10) | JSON
MESSAGE = st.fixed_dictionaries(
    {
        "role": st.sampled_from(["ROLE_USER", "user", "ROLE_AGENT", "agent", "", 7]),
        "parts": st.lists(PART, max_size=3) | JSON,
    },
    optional={
        "messageId": st.text(max_size=6) | JSON,
        "contextId": st.sampled_from(["fuzz-ctx", "bad ctx", ""]) | JSON,
        "taskId": TASK_IDS,
        "kind": st.just("message"),
    },
)
PARAMS = st.one_of(
    st.fixed_dictionaries(
        {"message": MESSAGE | JSON},
        optional={
            "configuration": st.fixed_dictionaries(
                {},
                optional={
                    "historyLength": JSON,
                    "acceptedOutputModes": JSON | st.just(["text/plain"]),
                    "returnImmediately": JSON,
                    "blocking": JSON,
                },
            )
            | JSON
        },
    ),
    st.fixed_dictionaries({"id": TASK_IDS}, optional={"historyLength": JSON}),
    st.fixed_dictionaries(
        {},
        optional={
            "contextId": JSON,
            "status": JSON,
            "pageSize": JSON,
            "pageToken": JSON,
            "historyLength": JSON,
        },
    ),
    JSON,
)
VALID = st.one_of(
    st.builds(
        lambda method, text: {
            "jsonrpc": "2.0",
            "id": 1,
            "method": method,
            "params": {"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": text}]}},
        },
        st.sampled_from(["SendMessage", "SendStreamingMessage"]),
        COMMANDS,
    ),
    st.builds(
        lambda text: {
            "jsonrpc": "2.0",
            "id": "v03",
            "method": "message/send",
            "params": {
                "message": {
                    "kind": "message",
                    "messageId": "m",
                    "role": "user",
                    "parts": [{"kind": "text", "text": text}],
                }
            },
        },
        COMMANDS,
    ),
    st.just({"jsonrpc": "2.0", "id": 2, "method": "ListTasks", "params": {"contextId": "fuzz-ctx"}}),
)
REQUEST = st.one_of(
    VALID,
    st.fixed_dictionaries(
        {"jsonrpc": st.sampled_from(["2.0", "2.0", "1.0"]), "method": METHODS, "params": PARAMS},
        optional={"id": JSON},
    ),
    JSON,
)
ANSWERS: collections.Counter[str] = collections.Counter()


@pytest.fixture(scope="module", params=BACKENDS)
def a2a_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("a2a-fuzz")
    pg = request.getfixturevalue("postgres_url") if request.param == "postgres" else None
    settings = Settings(
        db_url=fresh_database(request.param, home, pg),
        approval_secret_file=str(home / "secret"),
        keepalive_seconds=0,
        max_body_bytes=64 * 1024,
    )
    with serve_app(create_app(builtin_agents(), settings=settings), lifespan="on") as url:
        yield url


def _check_answer(answer: Any) -> None:
    assert isinstance(answer, dict) and answer.get("jsonrpc") == "2.0", answer
    assert ("result" in answer) != ("error" in answer), answer
    if "error" in answer:
        assert isinstance(answer["error"]["code"], int) and answer["error"]["message"]
        ANSWERS[str(answer["error"]["code"])] += 1
    else:
        ANSWERS["result"] += 1


def test_a2a_requests_never_5xx(a2a_url: str) -> None:
    @given(body=REQUEST)
    @settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    def run(body: Any) -> None:
        with httpx.stream(
            "POST",
            f"{a2a_url}/a2a",
            content=orjson.dumps(body),
            headers={"content-type": "application/json"},
            timeout=30,
        ) as r:
            raw = r.read()
            assert r.status_code == 200, raw
            if r.headers["content-type"].startswith("text/event-stream"):
                events = [orjson.loads(line[6:]) for line in raw.splitlines() if line.startswith(b"data: ")]
                assert events
                for event in events:
                    _check_answer(event)
            else:
                _check_answer(orjson.loads(raw))

    run()


def test_the_fuzz_reached_results_and_refusals() -> None:
    assert ANSWERS["result"] and {"-32600", "-32602"} <= set(ANSWERS), ANSWERS
