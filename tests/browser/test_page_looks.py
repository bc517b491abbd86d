"""Screenshots of a full conversation (Markdown with code, a folded tool card, an approval, message
actions and a branch switch) on a desktop, a phone, and in dark mode, for a person to look at."""

from __future__ import annotations

import pytest
from chat_page import PageProblems, assistant, open_page, screenshot, send, tool_card, wait_idle
from playwright.sync_api import Browser, expect

pytestmark = pytest.mark.browser

REPLY = """Here is the plan:

1. Fetch the forecast
   - [x] Paris
   - [ ] Lima
2. Compare ~~yesterday~~ today

| city | °C |
|---|--:|
| Paris | 21 |

```python
def forecast(city: str) -> str:
    return f"Sunny in {city}"  # always
```"""


@pytest.mark.parametrize(
    ("name", "context"),
    [
        ("looks-desktop", {"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"}),
        ("looks-dark", {"viewport": {"width": 1280, "height": 900}, "color_scheme": "dark"}),
        (
            "looks-phone",
            {
                "viewport": {"width": 390, "height": 844},
                "color_scheme": "light",
                "is_mobile": True,
                "has_touch": True,
                "device_scale_factor": 2,
            },
        ),
    ],
)
def test_a_full_conversation_looks_right(
    browser: Browser, server_url: str, problems: PageProblems, name: str, context: dict
) -> None:
    page = open_page(browser, problems, **context)
    try:
        page.goto(server_url)
        send(page, "weather in Paris")
        expect(tool_card(page, "get_weather")).to_have_attribute("data-state", "output-available")
        wait_idle(page)
        assistant(page).get_by_role("button", name="Regenerate").click()
        wait_idle(page)
        page.get_by_role("combobox", name="Agent").select_option("parrot")
        # The agent picker starts a new conversation: Markdown from parrot, then an approval.
        send(page, REPLY)
        expect(assistant(page).locator(".code-block")).to_be_visible()
        wait_idle(page)
        page.locator(".log").evaluate("log => { log.scrollTop = 0; }")
        page.mouse.move(0, 0)
        screenshot(page, name)
        if name == "looks-phone":
            page.get_by_role("button", name="Conversations").click()
            expect(page.get_by_role("searchbox", name="Search conversations")).to_be_visible()
            screenshot(page, "looks-phone-sidebar")
    finally:
        page.context.close()
    problems.check()
