"""An approval card the conversation has moved past: read-only, showing what the server recorded.

Asked for an approval, the user writes something else instead. The old card must not offer
Approve/Deny any more — clicking them sent nothing, yet the card turned to "You approved this
call." — and after a reload it still says the call was not answered, as the server recorded.
"""

from __future__ import annotations

import httpx
import pytest
from chat_page import assistant, chat_id, send, tool_card, wait_idle
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.browser


def expect_not_answered(card: Locator) -> None:
    expect(card.get_by_role("button", name="Approve")).to_have_count(0)
    expect(card.get_by_role("button", name="Deny")).to_have_count(0)
    expect(card.locator(".badge")).to_have_text("not answered")
    expect(card).to_contain_text("Not answered.")
    expect(card).not_to_contain_text("You approved this call.")


def test_an_approval_the_conversation_moved_past_is_read_only(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "delete ignored.txt")
    card = tool_card(page, "delete_file")
    expect(card).to_have_attribute("data-state", "approval-requested")
    wait_idle(page)
    send(page, "something else")
    expect(assistant(page)).to_contain_text("You said: something else")
    wait_idle(page)
    expect_not_answered(tool_card(page, "delete_file"))
    sid = chat_id(page)
    page.reload()
    expect(assistant(page)).to_contain_text("You said: something else")
    expect_not_answered(tool_card(page, "delete_file"))
    # The server recorded no answer for the call.
    with httpx.Client(base_url=server_url, timeout=10) as client:
        stored = client.get(f"tasks/{sid}/messages", params={"format": "vercel"}).json()["messages"]
    [call] = [p for m in stored for p in m["parts"] if p.get("toolCallId")]
    assert call["state"] == "approval-requested"
    assert "approved" not in (call.get("approval") or {})


def test_the_latest_approval_still_has_its_buttons(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "delete first.txt")
    expect(tool_card(page, "delete_file")).to_have_attribute("data-state", "approval-requested")
    wait_idle(page)
    send(page, "delete second.txt")
    cards = page.locator("section.tool[data-tool='delete_file']")
    expect(cards).to_have_count(2)
    wait_idle(page)
    expect_not_answered(cards.first)
    latest = cards.last
    latest.get_by_role("button", name="Approve").click()
    expect(assistant(page)).to_contain_text("Deleted second.txt.")
    expect(latest).to_have_attribute("data-state", "output-available")
    expect_not_answered(cards.first)
