"""Driving the chat page the way a person does: type, press Enter, click, read what is shown."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Locator, Page, expect

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "browser"


class PageProblems:
    """What went wrong in the page that no assertion looks for: uncaught errors and dialogs."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.foreign_requests: list[str] = []

    def check(self) -> None:
        assert self.errors == [], f"the page threw: {self.errors}"
        assert self.dialogs == [], f"the page opened dialogs: {self.dialogs}"
        # Offline by construction: the page loads and asks nothing from any other host.
        assert self.foreign_requests == [], f"requests to other hosts: {self.foreign_requests}"


def open_page(browser: Browser, problems: PageProblems, **context_args: object) -> Page:
    context = browser.new_context(**{"viewport": {"width": 1200, "height": 820}, **context_args})
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda error: problems.errors.append(str(error)))

    def on_dialog(dialog) -> None:  # type: ignore[no-untyped-def]
        problems.dialogs.append(dialog.message)
        dialog.dismiss()

    def on_request(request) -> None:  # type: ignore[no-untyped-def]
        if not request.url.startswith(("http://127.0.0.1:", "data:", "blob:")):
            problems.foreign_requests.append(request.url)

    page.on("dialog", on_dialog)
    page.on("request", on_request)
    return page


def screenshot(page: Page, name: str) -> Path:
    """Save what the page shows as test-artifacts/browser/<name>.png (for a person to look at)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), animations="disabled")
    return path


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
