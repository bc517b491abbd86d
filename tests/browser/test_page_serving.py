"""The page wherever it is served: under a mount prefix, behind API keys, on a phone."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from chat_page import PageProblems, assistant, open_page, screenshot, send, tool_card, wait_idle
from fastapi import FastAPI
from page_agents import page_test_agents
from playwright.sync_api import Browser, Page, expect

from services import serve_app
from turnwire.server import Settings, create_app

pytestmark = pytest.mark.browser

KEY = "tw-page-test-key-0123456789"


def _settings(folder: Path, **overrides: object) -> Settings:
    return Settings(
        db_url=f"sqlite:///{folder / 'turnwire.db'}", approval_secret_file=str(folder / "secret"), **overrides
    )


def _mounted(inner: FastAPI, prefix: str) -> FastAPI:
    """``inner`` mounted at ``prefix`` in another app, which runs its lifespan (a mount does not)."""

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        async with inner.router.lifespan_context(inner):
            yield

    outer = FastAPI(lifespan=lifespan)
    outer.mount(prefix, inner)
    return outer


@pytest.fixture
def fresh_page(browser: Browser, problems: PageProblems) -> Iterator[Page]:
    page = open_page(browser, problems)
    yield page
    page.context.close()
    problems.check()


def test_the_page_works_under_a_mount_prefix(fresh_page: Page, tmp_path: Path) -> None:
    page = fresh_page
    app = _mounted(create_app(page_test_agents(), settings=_settings(tmp_path)), "/tools/turnwire")
    with serve_app(app) as url:
        with page.expect_request(re.compile(r"/tools/turnwire/chat$")) as sent:
            page.goto(f"{url}/tools/turnwire/")
            send(page, "weather in Rome")
        assert sent.value.url == f"{url}/tools/turnwire/chat"
        expect(assistant(page)).to_contain_text("It is sunny and 21 °C in Rome.")
        sidebar = page.get_by_role("navigation", name="Conversations")
        expect(sidebar.get_by_role("button", name=re.compile("weather in Rome"))).to_be_visible()
        wait_idle(page)


def test_the_page_gets_approvals_from_a_server_targeting_ai_5(fresh_page: Page, tmp_path: Path) -> None:
    # ai 5 has no approval chunks; the page says which client it is (x-ai-sdk-version: 7).
    page = fresh_page
    settings = _settings(tmp_path, vercel_client_version="5")
    with serve_app(create_app(page_test_agents(), settings=settings)) as url:
        page.goto(url + "/")
        with page.expect_request(re.compile(r"/chat$")) as sent:
            send(page, "delete notes.txt")
        assert sent.value.headers["x-ai-sdk-version"] == "7"
        tool_card(page, "delete_file").get_by_role("button", name="Approve").click()
        expect(assistant(page)).to_contain_text("Deleted notes.txt.")


def test_the_page_asks_for_an_api_key_once_and_sends_it(fresh_page: Page, tmp_path: Path) -> None:
    page = fresh_page
    # The server's own API keys (issue 12): the page and its assets load without one, every other
    # route answers 401 JSON until the page sends the key it asked for.
    app = create_app(page_test_agents(), settings=_settings(tmp_path, api_keys=[f"page:{KEY}"]))
    with serve_app(app) as url:
        page.goto(url + "/")
        dialog = page.get_by_role("dialog", name="API key needed")
        expect(dialog).to_be_visible()
        key_box = dialog.get_by_role("textbox", name="API key")
        expect(key_box).to_be_focused()
        key_box.fill("wrong-key")
        key_box.press("Enter")
        expect(dialog).to_contain_text("did not accept")
        screenshot(page, "api-key")
        key_box.fill(KEY)
        key_box.press("Enter")
        expect(dialog).to_have_count(0)
        with page.expect_request(re.compile(r"/chat$")) as sent:
            send(page, "hello with a key")
        assert sent.value.headers["authorization"] == f"Bearer {KEY}"
        expect(assistant(page)).to_contain_text("You said: hello with a key")
        wait_idle(page)
        # Kept in this browser: a reload does not ask again, and the conversation is still there.
        page.reload()
        expect(assistant(page)).to_contain_text("You said: hello with a key")
        expect(page.get_by_role("dialog")).to_have_count(0)


def test_the_page_is_usable_on_a_phone(browser: Browser, problems: PageProblems, server_url: str) -> None:
    page = open_page(
        browser, problems, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        page.goto(server_url)
        sidebar = page.get_by_role("navigation", name="Conversations")
        expect(sidebar).to_be_hidden()
        send(page, "weather in Lisbon")
        expect(assistant(page)).to_contain_text("It is sunny and 21 °C in Lisbon.")
        wait_idle(page)
        # Nothing is wider than the screen.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        screenshot(page, "phone")
        page.get_by_role("button", name="Conversations").click()
        expect(sidebar).to_be_visible()
        expect(sidebar.get_by_role("button", name=re.compile("weather in Lisbon"))).to_be_visible()
        screenshot(page, "phone-sidebar")
        expect(sidebar.get_by_role("button", name="+ New chat")).to_be_focused()
        page.keyboard.press("Escape")  # closes it again
        expect(sidebar).to_be_hidden()
        page.get_by_role("button", name="Conversations").click()
        expect(sidebar).to_be_visible()
        page.mouse.click(370, 400)  # a tap on the dimmed chat closes it
        expect(sidebar).to_be_hidden()
        page.get_by_role("button", name="Conversations").click()
        sidebar.get_by_role("button", name="+ New chat").click()
        expect(sidebar).to_be_hidden()
        expect(page.locator("article.msg")).to_have_count(0)
    finally:
        page.context.close()
    problems.check()
