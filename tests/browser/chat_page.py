"""Driving the chat page the way a person does: type, press Enter, click, read what is shown."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect


def composer(page: Page) -> Locator:
    return page.get_by_role("textbox", name="Message")


def send(page: Page, text: str) -> None:
    """Type ``text`` into the composer and press Enter."""
    box = composer(page)
    box.fill(text)
    box.press("Enter")


def assistant(page: Page, index: int = -1) -> Locator:
    """The ``index``-th assistant message (default: the last)."""
    messages = page.locator("article.msg.assistant[data-message-id]")
    return messages.nth(index) if index >= 0 else messages.last


def user_messages(page: Page) -> Locator:
    return page.locator("article.msg.user")


def wait_idle(page: Page) -> None:
    """Until the answer has ended: the Stop button is gone and Send is back."""
    expect(page.get_by_role("button", name="Stop")).to_have_count(0)
    expect(page.get_by_role("button", name="Send")).to_be_visible()


def tool_card(page: Page, tool: str) -> Locator:
    return page.locator(f"section.tool[data-tool='{tool}']").last


def chat_id(page: Page) -> str:
    """The open conversation's id (the page keeps it in the URL fragment)."""
    return page.evaluate("decodeURIComponent(location.hash.slice(1))")
