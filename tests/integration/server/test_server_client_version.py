"""The AI SDK version a Vercel answer targets, over real HTTP: the server setting
(``Settings.vercel_client_version`` / ``TURNWIRE_VERCEL_CLIENT_VERSION`` / ``--vercel-client-version``)
and the per-request ``x-ai-sdk-version`` header on ``/invoke`` and ``/chat``."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pydantic
import pytest
from live_server import serve
from server_wire import invoke_body, sse_events

from turnwire.agents import builtin_agents
from turnwire.formats.vercel import ClientVersion
from turnwire.server import Settings, create_app

SSE = {"accept": "text/event-stream", "x-ag-messages-format": "vercel"}
HEADER = "x-ai-sdk-version"
APPROVAL_CHUNKS = {"tool-approval-request", "tool-output-denied"}
ROUTES = ["invoke", "chat"]


def _ui(text: str) -> list[dict[str, Any]]:
    return [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": text}]}]


def _post(
    client: httpx.Client, route: str, messages: list[Any], session: str, **headers: str
) -> httpx.Response:
    if route == "invoke":
        body = invoke_body(messages, session_id=session)
        return client.post("/agents/demo/invoke", json=body, headers={**SSE, **headers})
    return client.post("/agents/demo/chat", json={"id": session, "messages": messages}, headers=headers)


def _chunks(response: httpx.Response) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.text
    events = sse_events(response.content)
    assert events[-1] == "[DONE]"
    return events[:-1]


def _types(chunks: list[dict[str, Any]]) -> list[str]:
    return [c["type"] for c in chunks]


@pytest.fixture(scope="module")
def v5_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    home = tmp_path_factory.mktemp("v5")
    settings = Settings(
        vercel_client_version="5", approval_secret_file=str(home / "secret"), keepalive_seconds=0
    )
    with serve(create_app(builtin_agents(), settings=settings)) as url:
        yield url


@pytest.fixture
def v5_client(v5_server: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=v5_server, timeout=10) as c:
        yield c


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("version", ["5", "v5", "ai@5.0.100"])
def test_a_v5_request_never_gets_approval_chunks(client: httpx.Client, route: str, version: str) -> None:
    chunks = _chunks(_post(client, route, _ui("delete notes.txt"), f"cv5-{route}", **{HEADER: version}))
    assert not APPROVAL_CHUNKS & set(_types(chunks))
    gate = [c for c in chunks if c["type"] == "data-interaction"]
    assert len(gate) == 1 and gate[0]["data"]["kind"] == "user_approval"
    assert gate[0]["id"].startswith("ap_")  # the signed token the client answers with
    tool = next(c for c in chunks if c["type"] == "tool-input-available")
    assert tool["input"] == {"path": "notes.txt"} and tool["toolName"] == "delete_file"


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("version", ["7", "6", "default", None, ""])
def test_v6_v7_and_default_requests_get_the_approval_request(
    client: httpx.Client, route: str, version: str | None
) -> None:
    headers = {} if version is None else {HEADER: version}
    chunks = _chunks(_post(client, route, _ui("delete notes.txt"), f"cv7-{route}", **headers))
    request = [c for c in chunks if c["type"] == "tool-approval-request"]
    assert len(request) == 1 and request[0]["approvalId"].startswith("ap_")
    assert "data-interaction" not in _types(chunks)


@pytest.mark.parametrize("route", ROUTES)
def test_a_v5_denial_is_a_tool_output_error_and_comes_before_the_step(
    client: httpx.Client, route: str
) -> None:
    session = f"cv5-deny-{route}"
    asked = _chunks(_post(client, route, _ui("delete notes.txt"), session, **{HEADER: "5"}))
    gate = next(c for c in asked if c["type"] == "data-interaction")
    call_id = gate["data"]["payload"]["toolCallId"]
    start = next(c for c in asked if c["type"] == "start")
    paused = {
        "id": start["messageId"],
        "role": "assistant",
        "parts": [
            {"type": "step-start"},
            {
                "type": "tool-delete_file",
                "toolCallId": call_id,
                "state": "input-available",
                "input": {"path": "notes.txt"},
            },
            {
                "type": "tool-approval-response",
                "approvalId": gate["id"],
                "toolCallId": call_id,
                "approved": False,
            },
        ],
    }
    reply = _chunks(_post(client, route, [*_ui("delete notes.txt"), paused], session, **{HEADER: "5"}))
    assert _types(reply)[:3] == ["start", "tool-output-error", "start-step"]
    assert reply[0]["messageId"] == start["messageId"]
    assert reply[1] == {
        "type": "tool-output-error",
        "toolCallId": call_id,
        "errorText": "The user denied it.",
    }
    assert not APPROVAL_CHUNKS & set(_types(reply))


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("value", ["4", "8", "latest", "five", "ai@4.3.0"])
def test_an_unsupported_version_is_a_400_naming_the_header(
    client: httpx.Client, route: str, value: str
) -> None:
    r = _post(client, route, _ui("delete notes.txt"), "cv-bad", **{HEADER: value})
    assert r.status_code == 400
    (item,) = r.json()["detail"]
    assert item["loc"] == ["header", HEADER]
    assert item["type"] == "invalid_client_version"
    assert value in item["msg"]


def test_the_header_is_ignored_for_agenta_answers(client: httpx.Client) -> None:
    body = invoke_body([{"role": "user", "content": "hi"}])
    r = client.post("/agents/demo/invoke", json=body, headers={HEADER: "nonsense"})
    assert r.status_code == 200
    assert r.json()["data"]["outputs"]["messages"][-1]["content"] == "You said: hi"


@pytest.mark.parametrize("route", ROUTES)
def test_the_server_setting_applies_when_no_header_names_a_version(
    v5_client: httpx.Client, route: str
) -> None:
    plain = _chunks(_post(v5_client, route, _ui("delete notes.txt"), f"srv5-{route}"))
    assert not APPROVAL_CHUNKS & set(_types(plain))
    assert "data-interaction" in _types(plain)
    for override in ("7", "default"):
        chunks = _chunks(
            _post(v5_client, route, _ui("delete notes.txt"), f"srv5-{route}-{override}", **{HEADER: override})
        )
        assert "tool-approval-request" in _types(chunks)


def test_settings_read_the_client_version_from_the_environment() -> None:
    assert Settings.from_env({}).vercel_client_version is ClientVersion.DEFAULT
    for raw, version in (("5", ClientVersion.V5), ("v6", ClientVersion.V6), ("7", ClientVersion.V7)):
        assert Settings.from_env({"TURNWIRE_VERCEL_CLIENT_VERSION": raw}).vercel_client_version is version
    assert Settings(vercel_client_version=ClientVersion.V6).vercel_client_version is ClientVersion.V6
    for bad in ("4", "latest", True, 5.5):
        with pytest.raises(pydantic.ValidationError, match="vercel_client_version"):
            Settings(vercel_client_version=bad)  # type: ignore[arg-type]


def test_serve_refuses_an_unsupported_client_version() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from turnwire.cli import app; app()",
            "serve",
            "--vercel-client-version",
            "4",
        ],
        capture_output=True,
        timeout=30,
        cwd=Path(__file__).resolve().parents[3],
    )
    assert proc.returncode == 2
    assert "--vercel-client-version" in proc.stderr.decode() and "'4'" in proc.stderr.decode()
