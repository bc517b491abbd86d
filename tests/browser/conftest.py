"""Fixtures for the chat page tests: a live turnwire server on loopback and headless Chromium.

The browser is Debian's ``chromium`` (``scripts/install-system-deps``) driven by Playwright for
Python; Playwright never downloads a browser here. Each test gets a fresh browser context (empty
localStorage) and fails if the page throws or opens a dialog (``alert`` would mean injected script).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest
from chat_page import PageProblems, open_page
from page_agents import more_page_test_agents, page_test_agents
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from services import serve_app
from turnwire.server import Settings, create_app

CHROMIUM_CANDIDATES = ("chromium", "chromium-browser")


def chromium_path() -> str:
    """The system Chromium; a missing one fails the test (install it with scripts/install-system-deps)."""
    explicit = os.environ.get("TURNWIRE_CHROMIUM")
    if explicit:
        return explicit
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail("chromium is not installed: run scripts/install-system-deps (Debian package `chromium`)")


# Module scope, not session: while Playwright's sync API is open it keeps an event loop running in
# the main thread, and tests elsewhere that call asyncio.run() would fail.
@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    browser = playwright.chromium.launch(executable_path=chromium_path(), args=["--no-sandbox"])
    yield browser
    browser.close()


@pytest.fixture(scope="session")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real server (SQLite store, demo + test agents) for the whole session; ends with ``/``."""
    data = tmp_path_factory.mktemp("page-server")
    settings = Settings(
        db_url=f"sqlite:///{data / 'turnwire.db'}",
        approval_secret_file=str(data / "secret"),
        keepalive_seconds=1,
    )
    with serve_app(create_app(page_test_agents(), settings=settings)) as url:
        yield url + "/"


@pytest.fixture(scope="session")
def more_server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Like ``server_url``, with more agents (``more_page_test_agents``) and a store of its own."""
    data = tmp_path_factory.mktemp("page-server-more")
    settings = Settings(
        db_url=f"sqlite:///{data / 'turnwire.db'}",
        approval_secret_file=str(data / "secret"),
        keepalive_seconds=1,
    )
    with serve_app(create_app(more_page_test_agents(), settings=settings)) as url:
        yield url + "/"


@pytest.fixture
def problems() -> PageProblems:
    return PageProblems()


@pytest.fixture
def page(browser: Browser, problems: PageProblems) -> Iterator[Page]:
    page = open_page(browser, problems)
    yield page
    page.context.close()
    problems.check()
