"""A failed turn is one WARNING line with its request id and trace id; its traceback is at DEBUG.

A real app on loopback serves the demo (``fail`` raises mid-reply), the OpenAI-compatible agent
on the replaying fake model server (``rate limited`` is its 429), and the same agent with no API
key at all. Each failure, on a streamed and a batch door, must show at the default level (WARNING)
as exactly one line naming the request id the client sent and the trace id its answer carries.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from openai import AsyncOpenAI

from openai_fake import FakeOpenAI, fake_openai
from services import serve_app, turnwire_process
from turnwire.agents import demo_agent, openai_agent
from turnwire.server import Settings, create_app

_ids = itertools.count()
SSE = {"accept": "text/event-stream"}


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with fake_openai() as server:
        yield server


@pytest.fixture(scope="module")
def url(
    fake: FakeOpenAI, tmp_path_factory: pytest.TempPathFactory, monkeypatch_module: pytest.MonkeyPatch
) -> Iterator[str]:
    home: Path = tmp_path_factory.mktemp("failure-log")
    # The keyless agent makes its SDK client from the environment, which holds no key.
    monkeypatch_module.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch_module.setenv("OPENAI_BASE_URL", fake.base_url)
    agents = {
        "demo": demo_agent,
        # No retries: the recorded 429 says "retry after 20 s", which the SDK would wait out.
        "model": openai_agent(
            "gpt-4o-mini", client=AsyncOpenAI(base_url=fake.base_url, api_key="sk", max_retries=0)
        ),
        "keyless": openai_agent("gpt-4o-mini"),
    }
    settings = Settings(db_url=f"sqlite:///{home / 'store.db'}", approval_secret_file=str(home / "secret"))
    with serve_app(create_app(agents, default_agent="demo", settings=settings)) as base:
        yield base


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def invoke(url: str, agent: str, text: str, *, stream: bool) -> tuple[str, httpx.Response]:
    rid = f"req-{agent}-{next(_ids)}"
    body = {"data": {"inputs": {"messages": [{"role": "user", "content": text}]}}}
    headers = {"x-request-id": rid, **(SSE if stream else {})}
    return rid, httpx.post(f"{url}/agents/{agent}/invoke", json=body, headers=headers, timeout=30)


def warnings_of(caplog: pytest.LogCaptureFixture, rid: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING and rid in r.getMessage()]


CASES = [
    ("demo", "fail", "agent_run_failed: Agent run failed: demo failure requested"),
    ("model", "rate limited", "model_rate_limited: The model server answered 429"),
    ("keyless", "hello", "Calling the model failed: OpenAIError"),
]


@pytest.mark.parametrize("stream", [True, False], ids=["sse", "batch"])
@pytest.mark.parametrize(("agent", "text", "says"), CASES, ids=[c[0] for c in CASES])
def test_a_failed_turn_is_one_warning_with_its_request_and_trace_ids(
    url: str, caplog: pytest.LogCaptureFixture, agent: str, text: str, says: str, stream: bool
) -> None:
    with caplog.at_level(logging.DEBUG, logger="turnwire"):
        rid, response = invoke(url, agent, text, stream=stream)
    trace = response.headers["x-ag-trace-id"]
    assert ('"stopReason":"error"' in response.text) if stream else response.status_code == 500

    [line] = warnings_of(caplog, rid)
    assert line.levelno == logging.WARNING and line.name == "turnwire.server.turns"
    message = line.getMessage()
    assert message.startswith("turn failed: ") and says in message, message
    assert f"[request_id={rid}]" in message and f"[trace_id={trace}]" in message
    assert f"agent {agent!r}" in message
    # Nothing about this turn above DEBUG carries a traceback: it is there for debugging only.
    tracebacks = [r for r in caplog.records if r.exc_info is not None and trace in r.getMessage()]
    assert all(r.levelno == logging.DEBUG for r in tracebacks)
    if agent == "demo":  # the agent raised: its traceback is kept, at DEBUG
        assert tracebacks and "demo failure requested" in str(tracebacks[0].exc_info[1])


def test_a_failed_chat_turn_is_logged_too(url: str, caplog: pytest.LogCaptureFixture) -> None:
    body = {
        "id": f"chat-fail-{next(_ids)}",
        "trigger": "submit-message",
        "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": "fail"}]}],
    }
    with caplog.at_level(logging.INFO, logger="turnwire"):
        response = httpx.post(f"{url}/chat", json=body, headers={"x-request-id": "req-chat-fail"}, timeout=30)
    assert response.status_code == 200 and '"type":"error"' in response.text
    [line] = warnings_of(caplog, "req-chat-fail")
    assert f"[trace_id={response.headers['x-ag-trace-id']}]" in line.getMessage()


def test_a_turn_that_succeeds_logs_no_warning(url: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="turnwire"):
        rid, response = invoke(url, "model", "hello", stream=True)
    assert response.status_code == 200 and '"stopReason":"end_turn"' in response.text
    assert warnings_of(caplog, rid) == []


def _stderr_of_a_failed_turn(home: Path, *args: str) -> tuple[str, str, str]:
    with turnwire_process(home, *args) as (base, proc):
        rid, response = invoke(base, "demo", "fail", stream=True)
        proc.terminate()
        _, err = proc.communicate(timeout=15)
    return err.decode(), rid, response.headers["x-ag-trace-id"]


def test_turnwire_serve_shows_the_failure_at_its_default_level(tmp_path: Path) -> None:
    err, rid, trace = _stderr_of_a_failed_turn(tmp_path)
    [line] = [line for line in err.splitlines() if rid in line]
    assert line.startswith("WARNING:") and "turn failed: agent_run_failed" in line
    assert f"[trace_id={trace}]" in line
    assert "Traceback" not in err


def test_turnwire_serve_shows_the_traceback_at_debug(tmp_path: Path) -> None:
    err, _, trace = _stderr_of_a_failed_turn(tmp_path, "--log-level", "debug")
    assert f"agent failed (trace {trace})" in err
    assert "Traceback" in err and "RuntimeError: demo failure requested" in err
