"""Tool cards: open while the call runs or waits for approval, folded to one line once done, opened
and closed again by a click; a long output scrolls inside its card."""

from __future__ import annotations

import pytest
from chat_page import assistant, screenshot, send, tool_card, wait_idle
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def test_a_finished_call_folds_to_one_line_and_opens_on_click(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "weather in Lima")
    card = tool_card(page, "get_weather")
    expect(card).to_have_attribute("data-state", "output-available")
    wait_idle(page)
    details = card.locator("details")
    expect(details).not_to_have_attribute("open", "")
    summary = card.locator("summary")
    expect(summary).to_contain_text("get_weather")
    expect(summary).to_contain_text("done")
    expect(card.locator(".tool-summary")).to_contain_text('"city": "Lima"')
    expect(card.locator(".tool-summary")).to_contain_text("Sunny")
    expect(card.locator(".io").first).to_be_hidden()
    assert summary.bounding_box()["height"] < 40  # one line
    summary.click()
    expect(details).to_have_attribute("open", "")
    expect(card.locator(".io").nth(1)).to_be_visible()
    expect(card.locator(".io").nth(1)).to_contain_text('"temperature_c": 21')
    summary.click()
    expect(card.locator(".io").first).to_be_hidden()
    # The keyboard does the same: the summary is focusable and Enter toggles it.
    summary.focus()
    page.keyboard.press("Enter")
    expect(details).to_have_attribute("open", "")


def test_a_card_waiting_for_approval_is_open_and_folds_once_done(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "delete fold.txt")
    card = tool_card(page, "delete_file")
    expect(card).to_have_attribute("data-state", "approval-requested")
    expect(card.locator("details")).to_have_attribute("open", "")
    expect(card.locator(".io").first).to_be_visible()
    card.get_by_role("button", name="Approve").click()
    expect(assistant(page)).to_contain_text("Deleted fold.txt.")
    expect(card.locator("details")).not_to_have_attribute("open", "")
    expect(card).to_contain_text("You approved this call.")


def test_forty_results_stay_a_small_card_and_scroll_inside_it(page: Page, more_server_url: str) -> None:
    page.goto(more_server_url)
    page.get_by_role("combobox", name="Agent").select_option("searcher")
    send(page, "turnwire")
    card = tool_card(page, "search")
    expect(assistant(page)).to_contain_text("I found 40 results for turnwire.")
    wait_idle(page)
    assert card.bounding_box()["height"] < 60  # folded: the answer is right below it
    card.locator("summary").click()
    output = card.locator(".io").nth(1).locator("pre")
    expect(output).to_contain_text("Result 40 for turnwire")
    box = output.bounding_box()
    assert box["height"] <= 330
    assert output.evaluate("el => el.scrollHeight > el.clientHeight")  # it scrolls inside the card
    screenshot(page, "tool-card-long-output")
