"""The README's picture of the page (docs/page.png), taken from a real session with the demo agent.

Always saved under test-artifacts/; ``make screenshot`` (``TURNWIRE_DOCS_SCREENSHOT=1``) also
writes it to docs/page.png.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from chat_page import ROOT, PageProblems, assistant, open_page, screenshot, send, tool_card, wait_idle
from playwright.sync_api import Browser, expect

from services import serve_app
from turnwire.server import Settings, create_app

pytestmark = pytest.mark.browser


def test_readme_screenshot(browser: Browser, problems: PageProblems, tmp_path: Path) -> None:
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'db.sqlite'}", approval_secret_file=str(tmp_path / "s")
    )
    page = open_page(browser, problems, viewport={"width": 1180, "height": 760}, color_scheme="light")
    try:
        with serve_app(create_app(settings=settings)) as url:
            page.goto(url + "/")
            for earlier in ("ask me", "count to 3"):  # a few older conversations in the sidebar
                send(page, earlier)
                wait_idle(page)
                page.get_by_role("button", name="+ New chat").click()
            send(page, "weather in Paris")
            expect(assistant(page)).to_contain_text("It is sunny")
            wait_idle(page)
            send(page, "delete notes.txt")
            expect(tool_card(page, "delete_file").get_by_role("button", name="Approve")).to_be_visible()
            wait_idle(page)
            assistant(page, 0).locator("details.reasoning summary").click()
            page.locator(".log").evaluate("log => { log.scrollTop = log.scrollHeight; }")
            page.mouse.move(0, 0)
            page.get_by_role("textbox", name="Message").blur()
            shot = screenshot(page, "readme")
    finally:
        page.context.close()
    problems.check()
    if os.environ.get("TURNWIRE_DOCS_SCREENSHOT") == "1":
        shutil.copyfile(shot, ROOT / "docs" / "page.png")
