"""The keyboard alone: Enter sends, Shift+Enter starts a new line, Escape stops, and Tab reaches the
message actions in reading order."""

from __future__ import annotations

import pytest
from chat_page import assistant, composer, user_messages, wait_idle
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def test_shift_enter_is_a_new_line_and_enter_sends(page: Page, server_url: str) -> None:
    page.goto(server_url)
    box = composer(page)
    box.click()
    page.keyboard.type("first line")
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("second line")
    expect(box).to_have_value("first line\nsecond line")
    expect(user_messages(page)).to_have_count(0)
    page.keyboard.press("Enter")
    expect(user_messages(page).last.locator(".user-text")).to_have_text("first line\nsecond line")
    expect(assistant(page)).to_contain_text("You said: first line")
    wait_idle(page)
    expect(box).to_have_value("")


def test_tab_reaches_the_message_actions_in_order(page: Page, server_url: str) -> None:
    page.goto(server_url)
    composer(page).fill("tab through")
    composer(page).press("Enter")
    wait_idle(page)
    copy = user_messages(page).last.get_by_role("button", name="Copy")
    copy.focus()
    page.keyboard.press("Tab")
    expect(user_messages(page).last.get_by_role("button", name="Edit message")).to_be_focused()
    page.keyboard.press("Tab")
    # Into the answer below: its reasoning, then its own Copy and Regenerate.
    for _ in range(6):
        if page.evaluate("document.activeElement?.getAttribute('aria-label')") == "Copy":
            break
        page.keyboard.press("Tab")
    expect(assistant(page).get_by_role("button", name="Copy")).to_be_focused()
    page.keyboard.press("Tab")
    expect(assistant(page).get_by_role("button", name="Regenerate")).to_be_focused()
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")  # the attach button's file input, then the message box
    for _ in range(3):
        if page.evaluate("document.activeElement?.getAttribute('aria-label')") == "Message":
            break
        page.keyboard.press("Tab")
    expect(composer(page)).to_be_focused()
