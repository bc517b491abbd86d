"""Replies rendered by the page's Markdown library: GFM, highlighted code with a Copy button,
math as MathML, and half-written Markdown while a reply streams."""

from __future__ import annotations

import pytest
from chat_page import assistant, screenshot, send, wait_idle
from page_agents import PAUSE, PAUSE_GATE
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

GFM = """1. first step
   - nested bullet
   - another one
2. second step

- [ ] open task
- [x] done task

Some ~~old~~ new text.

| name | score |
|:-----|------:|
| ada  | 10    |

```python
def greet(name):
    return "<b>" + name  # not markup
```

Math: $e^{i\\pi} + 1 = 0$, costs $5 and $10.

$$
\\int_0^1 x\\,dx
$$"""


def _parrot(page: Page) -> None:
    page.get_by_role("combobox", name="Agent").select_option("parrot")


def test_gfm_nested_lists_task_lists_tables_and_strikethrough(page: Page, server_url: str) -> None:
    page.goto(server_url)
    _parrot(page)
    send(page, GFM)
    md = assistant(page).locator(".md")
    expect(md.locator("ol > li")).to_have_count(2)
    expect(md.locator("ol > li").first.locator("ul > li")).to_have_text(["nested bullet", "another one"])
    assert "- nested" not in md.inner_text()
    boxes = md.locator("ul.task-list input[type=checkbox]")
    expect(boxes).to_have_count(2)
    expect(boxes.first).not_to_be_checked()
    expect(boxes.nth(1)).to_be_checked()
    expect(boxes.first).to_be_disabled()
    expect(md.locator("ul.task-list li")).to_have_text(["open task", "done task"])
    expect(md.locator("del")).to_have_text("old")
    expect(md.locator("table th")).to_have_text(["name", "score"])
    expect(md.locator("table td").nth(1)).to_have_css("text-align", "right")
    # Math is MathML the browser lays out: inline in the text, display on its own line; the TeX
    # rides along as the formula's annotation (what a screen reader or a copy can use).
    inline_math = md.locator("span.math > math").first
    expect(inline_math).to_be_visible()
    expect(inline_math.locator("mi").first).to_have_text("e")
    expect(inline_math.locator("annotation")).to_have_text("e^{i\\pi} + 1 = 0")
    expect(md).to_contain_text("costs $5 and $10.")  # dollars as money are not math
    display_math = md.locator("div.math.display > math")
    expect(display_math).to_have_attribute("display", "block")
    expect(display_math.locator("annotation")).to_have_text("\\int_0^1 x\\,dx")
    expect(display_math.locator("mo").first).to_have_text("∫")
    assert md.locator("b, script, img").count() == 0
    screenshot(page, "markdown-gfm")


def test_code_blocks_are_highlighted_labelled_and_copied(page: Page, server_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(server_url)
    _parrot(page)
    send(page, GFM)
    block = assistant(page).locator(".code-block")
    expect(block.locator(".code-lang")).to_have_text("python")
    code = block.locator("pre code")
    expect(code).to_have_text('def greet(name):\n    return "<b>" + name  # not markup')
    expect(code.locator("span.hljs-keyword").first).to_have_text("def")
    expect(code.locator("span.hljs-comment")).to_have_text("# not markup")
    assert code.locator("b").count() == 0
    block.get_by_role("button", name="Copy code").click()
    expect(block.get_by_role("button", name="Copy code")).to_have_text("Copied")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied == 'def greet(name):\n    return "<b>" + name  # not markup'


def test_half_written_markdown_renders_sensibly_while_it_streams(page: Page, server_url: str) -> None:
    PAUSE_GATE.clear()
    page.goto(server_url)
    _parrot(page)
    send(page, f"Some **bold text and `a code span and a [link](https://exa{PAUSE}mple.com) done** ok`.")
    md = assistant(page).locator(".md")
    try:
        # Mid-stream: the open bold shows bold, not stars; the open code span is code; the link whose
        # URL is still arriving shows its text only.
        expect(md.locator("strong")).to_contain_text("bold text and")
        expect(md.locator("code")).to_contain_text("a code span and a [link](https://exa")
        assert "**" not in md.inner_text()
        expect(page.get_by_role("button", name="Stop")).to_be_visible()
    finally:
        PAUSE_GATE.set()
    wait_idle(page)
    # Whole, the code span turns out to hold the closing stars: the finished reply is plain CommonMark.
    expect(md.locator("code")).to_have_text("a code span and a [link](https://example.com) done** ok")
    expect(md.locator("strong")).to_have_count(0)


def test_half_written_link_shows_its_text_until_its_url_is_whole(page: Page, server_url: str) -> None:
    PAUSE_GATE.clear()
    page.goto(server_url)
    _parrot(page)
    send(page, f"See [the docs](https://exa{PAUSE}mple.com/docs) for more.")
    md = assistant(page).locator(".md")
    try:
        expect(md).to_have_text("See the docs")
        expect(md.locator("a")).to_have_count(0)
    finally:
        PAUSE_GATE.set()
    expect(md.locator("a")).to_have_attribute("href", "https://example.com/docs")
    wait_idle(page)


def test_math_never_carries_markup_or_links(page: Page, server_url: str) -> None:
    page.goto(server_url)
    _parrot(page)
    hostile = (
        "A $\\href{javascript:alert(1)}{click}$ and $\\url{https://evil.example}$ and "
        "$\\htmlClass{x}{y}$ and $<img src=x onerror=alert(1)>$ and $\\frac{a}{b$ end."
    )
    send(page, hostile)
    md = assistant(page).locator(".md")
    expect(md).to_contain_text("end.")
    wait_idle(page)
    # Commands that could make links or markup are refused (trust is off): their TeX stays source,
    # like TeX that does not parse; angle brackets are math symbols, escaped, never a tag.
    assert md.locator("a, img, script, [onerror], [href]").count() == 0
    expect(md.locator("code.math")).to_have_text(
        [
            "\\href{javascript:alert(1)}{click}",
            "\\url{https://evil.example}",
            "\\htmlClass{x}{y}",
            "\\frac{a}{b",
        ]
    )
    expect(md.locator("span.math > math mo").first).to_have_text("<")
