"""The command line explains itself: --version, plain help with defaults and env vars, no markup."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from turnwire import __version__
from turnwire.cli import app
from turnwire.cli.convert import example_names
from turnwire.formats import names as format_names

runner = CliRunner()


def _help(*args: str) -> str:
    result = runner.invoke(app, [*args, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


def test_version_prints_the_package_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"turnwire {__version__}"


@pytest.mark.parametrize("command", [(), ("serve",), ("convert",), ("chat",)])
def test_help_has_no_type_tags_or_rst_markup(command: tuple[str, ...]) -> None:
    text = _help(*command)
    assert not re.search(r"<(bool|int|str|float|path|list\[str\])>", text), text
    assert "``" not in text and "╭" not in text


def test_top_level_help_lists_every_command() -> None:
    text = _help()
    for command in ("serve", "chat", "convert"):
        assert re.search(rf"^\s+{command}\s", text, re.M), text


def test_serve_help_gives_defaults_and_env_vars() -> None:
    text = " ".join(_help("serve").split())
    for needle in (
        "TURNWIRE_DB_URL",
        "./.turnwire/turnwire.db",
        "TURNWIRE_REDIS_URL",
        "TURNWIRE_KEEPALIVE_SECONDS",
        "default: 15",
        "TURNWIRE_VERCEL_CLIENT_VERSION",
        "[default: 8000]",
        "[default: 127.0.0.1]",
        "--workers",
        "--reload",
        "--log-level",
        "--app-dir",
        "--debug",
    ):
        assert needle in text, needle


def test_convert_help_lists_formats_and_examples() -> None:
    text = " ".join(_help("convert").split())
    for name in format_names():
        assert name in text
    examples = example_names()
    assert examples
    for name in examples:
        assert name.replace("-", "- ") in text or name in text, name


def test_chat_help_names_its_options() -> None:
    text = _help("chat")
    for needle in ("--agent", "--session", "--format", "http://127.0.0.1:8000", "Ctrl-C"):
        assert needle in text


def test_the_banner_shows_a_page_only_when_the_app_serves_one() -> None:
    from fastapi import APIRouter, FastAPI

    from turnwire.server import Settings, create_router
    from turnwire.server.banner import banner

    settings = Settings(
        db_url="postgresql://me:secret@db.example/turnwire", redis_url="redis://:pw@cache:6379/0"
    )
    app = FastAPI()  # every route but the chat page, which create_app() adds
    app.include_router(create_router(settings=settings))
    text = banner(
        host="0.0.0.0", port=9000, agents=["demo"], default_agent="demo", settings=settings, app=app
    )
    assert "page" not in text
    api = next(line for line in text.splitlines() if line.startswith("  API"))
    for door in ("/invoke", "/chat", "/agui", "/v1/chat/completions"):
        assert f"http://127.0.0.1:9000{door} " in api + " ", door
    assert "secret" not in text and "pw@" not in text
    assert "store    postgresql://me:***@db.example/turnwire" in text
    assert "redis    redis://:***@cache:6379/0" in text
    assert text.splitlines()[0].endswith(
        "serving http://127.0.0.1:9000 (listening on all interfaces, 0.0.0.0)"
    )
    page = APIRouter()
    page.add_api_route("/", lambda: "hello", methods=["GET"])
    app.include_router(page)
    text = banner(
        host="127.0.0.1", port=9000, agents=["demo"], default_agent="demo", settings=settings, app=app
    )
    assert "  page     http://127.0.0.1:9000/" in text


def test_chat_and_serve_help_name_the_first_hour_options() -> None:
    chat = " ".join(_help("chat").split())
    for needle in ("--api-key", "TURNWIRE_API_KEY", "/help", "/sessions", "/agent NAME"):
        assert needle in chat, needle
    serve = " ".join(_help("serve").split())
    for needle in ("--system", "--instructions", "@FILE", "./.turnwire/turnwire.db"):
        assert needle in serve, needle
