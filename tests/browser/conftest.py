"""Fixtures for the chat page tests: a live turnwire server on loopback and headless Chromium.

The browser is Debian's ``chromium`` (``scripts/install-system-deps``) driven by Playwright for
Python; Playwright never downloads a browser here. Each test gets a fresh browser context (empty
localStorage) and fails if the page throws or opens a dialog (``alert`` would mean injected script).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from page_agents import page_test_agents
from playwright.sync_api import Browser, Page, Playwright, sync_playwright

from services import serve_app
from turnwire.server import Settings, create_app

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
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


@pytest.fixture(scope="session")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
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


class PageProblems:
    """What went wrong in the page that no assertion looks for: uncaught errors and dialogs."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []


@pytest.fixture
def problems() -> PageProblems:
    return PageProblems()


def open_page(browser: Browser, problems: PageProblems, **context_args: object) -> Page:
    context = browser.new_context(**{"viewport": {"width": 1200, "height": 820}, **context_args})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda error: problems.errors.append(str(error)))

    def on_dialog(dialog) -> None:  # type: ignore[no-untyped-def]
        problems.dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return page


@pytest.fixture
def page(browser: Browser, problems: PageProblems) -> Iterator[Page]:
    page = open_page(browser, problems)
    yield page
    page.context.close()
    assert problems.errors == [], f"the page threw: {problems.errors}"
    assert problems.dialogs == [], f"the page opened dialogs: {problems.dialogs}"


def screenshot(page: Page, name: str) -> Path:
    """Save what the page shows as test-artifacts/browser/<name>.png (for a person to look at)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path))
    return path
