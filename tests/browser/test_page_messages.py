"""Message actions: Copy, Regenerate, Edit message; regenerate and edit make branches in the store
and the page switches between them with ‹ n / m ›, a reload showing the branch that was shown."""

from __future__ import annotations

import httpx
import pytest
from chat_page import assistant, chat_id, screenshot, send, user_messages, wait_idle
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def _branches(server_url: str, chat: str) -> list[dict]:
    with httpx.Client(base_url=server_url, timeout=10) as client:
        return client.get(f"tasks/{chat}/branches").json()["branches"]


def _texts(server_url: str, chat: str, leaf: str | None = None) -> list[str]:
    params = {"format": "vercel", **({"branch": leaf} if leaf else {})}
    with httpx.Client(base_url=server_url, timeout=10) as client:
        messages = client.get(f"tasks/{chat}/messages", params=params).json()["messages"]
    return [p["text"] for m in messages for p in m["parts"] if p["type"] == "text"]


def test_copy_puts_the_answer_on_the_clipboard(page: Page, server_url: str) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(server_url)
    send(page, "copy me")
    wait_idle(page)
    reply = assistant(page)
    reply.get_by_role("button", name="Copy").click()
    expect(reply.get_by_role("button", name="Copy")).to_have_text("Copied")
    assert page.evaluate("navigator.clipboard.readText()") == "You said: copy me"
    user_messages(page).last.get_by_role("button", name="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == "copy me"


def test_regenerate_makes_a_branch_and_the_switch_moves_between_them(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "count to 2")
    wait_idle(page)
    first_answer = assistant(page).get_attribute("data-message-id")
    assert user_messages(page).last.get_by_role("button", name="Regenerate").count() == 0
    assistant(page).get_by_role("button", name="Regenerate").click()
    wait_idle(page)
    expect(assistant(page)).not_to_have_attribute("data-message-id", first_answer or "")
    switch = assistant(page).get_by_role("group", name="Branches")
    expect(switch).to_contain_text("2 / 2")
    chat = chat_id(page)
    branches = _branches(server_url, chat)
    assert len(branches) == 2
    assert [b["latest"] for b in branches] == [False, True]
    screenshot(page, "regenerated")
    # Back to the first answer, and the page stays there across a reload.
    switch.get_by_role("button", name="Previous branch").click()
    expect(assistant(page)).to_have_attribute("data-message-id", first_answer or "")
    expect(assistant(page).get_by_role("group", name="Branches")).to_contain_text("1 / 2")
    expect(assistant(page).get_by_role("button", name="Previous branch")).to_be_disabled()
    page.reload()
    expect(assistant(page)).to_have_attribute("data-message-id", first_answer or "")
    expect(assistant(page).get_by_role("group", name="Branches")).to_contain_text("1 / 2")
    assistant(page).get_by_role("button", name="Next branch").click()
    expect(assistant(page).get_by_role("group", name="Branches")).to_contain_text("2 / 2")
    expect(assistant(page)).not_to_have_attribute("data-message-id", first_answer or "")


def test_editing_a_message_resends_it_on_a_new_branch(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "first words")
    expect(assistant(page)).to_contain_text("You said: first words")
    send(page, "second words")
    expect(assistant(page)).to_contain_text("You said: second words")
    wait_idle(page)
    chat = chat_id(page)
    first = user_messages(page).first
    first.get_by_role("button", name="Edit message").click()
    box = page.get_by_role("textbox", name="Edit your message")
    expect(box).to_have_value("first words")
    expect(box).to_be_focused()
    box.fill("better words")
    page.get_by_role("button", name="Save and send").click()
    expect(assistant(page)).to_contain_text("You said: better words")
    wait_idle(page)
    # The conversation now reads the edited branch; the old one stays whole beside it.
    expect(user_messages(page)).to_have_count(1)
    expect(user_messages(page).first.get_by_role("group", name="Branches")).to_contain_text("2 / 2")
    assert _texts(server_url, chat) == ["better words", "You said: better words"]
    branches = _branches(server_url, chat)
    assert len(branches) == 2
    old = next(b for b in branches if not b["latest"])
    assert _texts(server_url, chat, old["leaf_id"]) == [
        "first words",
        "You said: first words",
        "second words",
        "You said: second words",
    ]
    user_messages(page).first.get_by_role("button", name="Previous branch").click()
    expect(user_messages(page)).to_have_count(2)
    expect(user_messages(page).first).to_contain_text("first words")
    expect(assistant(page)).to_contain_text("You said: second words")


def test_an_edit_can_be_cancelled_with_escape(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "keep me")
    wait_idle(page)
    user_messages(page).first.get_by_role("button", name="Edit message").click()
    box = page.get_by_role("textbox", name="Edit your message")
    box.fill("changed")
    box.press("Escape")
    expect(box).to_have_count(0)
    expect(user_messages(page).first).to_contain_text("keep me")
    assert _branches(server_url, chat_id(page))[0]["latest"] is True
    assert len(_branches(server_url, chat_id(page))) == 1
