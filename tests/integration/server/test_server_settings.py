"""Settings from TURNWIRE_* variables, and the app's last-resort JSON 500 for real bugs."""

from __future__ import annotations

import httpx
import pydantic
import pytest
from live_server import serve

from turnwire.server import Settings, create_app


def test_defaults() -> None:
    s = Settings.from_env({})
    assert s.max_body_bytes == 10 * 1024 * 1024
    assert s.max_json_depth == 64
    assert s.keepalive_seconds == 15 and s.keepalive_interval == 15
    assert s.db_url is None and s.approval_secret is None


def test_environment_then_overrides() -> None:
    env = {
        "TURNWIRE_MAX_BODY_BYTES": "1024",
        "TURNWIRE_MAX_JSON_DEPTH": "8",
        "TURNWIRE_KEEPALIVE_SECONDS": "2.5",
        "TURNWIRE_DB_URL": "sqlite+aiosqlite:///x.db",
        "TURNWIRE_APPROVAL_SECRET": "k",
        "OTHER": "ignored",
    }
    s = Settings.from_env(env)
    assert (s.max_body_bytes, s.max_json_depth, s.keepalive_interval) == (1024, 8, 2.5)
    assert s.db_url == "sqlite+aiosqlite:///x.db" and s.approval_secret == "k"
    s = Settings.from_env(env, db_url="postgresql+asyncpg://h/db", keepalive_seconds=None)
    assert s.db_url == "postgresql+asyncpg://h/db"
    assert s.keepalive_interval == 2.5  # None override = not given


@pytest.mark.parametrize(("raw", "interval"), [("0", None), ("-3", None), ("abc", 15.0), ("0.2", 0.2)])
def test_keepalive_variable(raw: str, interval: float | None) -> None:
    assert Settings.from_env({"TURNWIRE_KEEPALIVE_SECONDS": raw}).keepalive_interval == interval


def test_malformed_limits_fail_loudly() -> None:
    with pytest.raises(pydantic.ValidationError):
        Settings.from_env({"TURNWIRE_MAX_BODY_BYTES": "lots"})
    with pytest.raises(pydantic.ValidationError):
        Settings(unknown_setting=1)  # type: ignore[call-arg]


def test_an_unexpected_exception_is_a_logged_json_500(caplog: pytest.LogCaptureFixture) -> None:
    app = create_app({})

    @app.get("/bug")
    async def bug() -> None:
        raise RuntimeError("a bug")

    with serve(app) as url:
        r = httpx.get(f"{url}/bug")
    assert r.status_code == 500
    assert r.headers["content-type"] == "application/json"
    body = r.json()
    # The body tells the request id the failure was logged under, never the exception itself.
    assert "a bug" not in r.text and "RuntimeError" not in r.text
    assert body["request_id"] == r.headers["x-request-id"] and body["request_id"] in body["detail"]
    logged = [rec for rec in caplog.records if body["request_id"] in rec.getMessage()]
    assert logged and logged[0].exc_info is not None
