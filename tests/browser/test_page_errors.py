"""Errors as sentences with a way out: a dropped server (Retry), a stopped answer that stays marked
after a reload, an `ask me` question shown once, a conversation whose agent is not served."""

from __future__ import annotations

import re

import pytest
from chat_page import assistant, composer, send, wait_idle
from playwright.sync_api import Page, Route, expect

pytestmark = pytest.mark.browser


def test_a_transport_error_is_a_sentence_with_retry(page: Page, server_url: str) -> None:
    page.goto(server_url)

    def drop(route: Route) -> None:
        route.abort("connectionrefused")

    page.route(re.compile(r"/chat$"), drop)
    send(page, "are you there")
    banner = page.locator(".log > .agent-error")
    expect(banner).to_contain_text("The server could not be reached.")
    expect(banner).not_to_contain_text("Failed to fetch")
    page.unroute(re.compile(r"/chat$"), drop)
    banner.get_by_role("button", name="Retry").click()
    expect(assistant(page)).to_contain_text("You said: are you there")
    expect(banner).to_have_count(0)
    expect(page.locator("article.msg.user")).to_have_count(1)


def test_a_stopped_answer_stays_marked_after_a_reload(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "count to 100")
    expect(assistant(page)).to_contain_text("3")
    composer(page).press("Escape")
    wait_idle(page)
    expect(assistant(page)).to_contain_text("You stopped this answer.")
    page.reload()
    expect(assistant(page)).to_contain_text("3")
    expect(assistant(page)).to_contain_text("You stopped this answer.")


def test_an_ask_me_question_is_shown_once(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "ask me")
    question = page.get_by_role("form", name="The agent asks")
    expect(question).to_contain_text("What should I echo?")
    wait_idle(page)
    assert assistant(page).inner_text().count("What should I echo?") == 1
    page.reload()
    expect(page.get_by_role("form", name="The agent asks")).to_contain_text("What should I echo?")
    assert assistant(page).inner_text().count("What should I echo?") == 1


def test_a_conversation_whose_agent_is_not_served_offers_the_served_ones(page: Page, server_url: str) -> None:
    page.goto(server_url)
    page.evaluate("localStorage.setItem('turnwire.chatAgents', JSON.stringify({'chat-ghost-2': 'ghost'}))")
    page.goto(server_url + "#chat-ghost-2")
    note = page.locator(".agent-missing")
    expect(note).to_contain_text("ghost")
    expect(note).to_contain_text("which this server does not serve")
    expect(note.get_by_role("button")).to_have_text(["demo", "shout", "painter", "parrot"])
    note.get_by_role("button", name="shout").click()
    expect(note).to_have_count(0)
    expect(page.get_by_role("combobox", name="Agent")).to_have_value("shout")
    send(page, "hello again")
    expect(assistant(page)).to_contain_text("SHOUTED: HELLO AGAIN")
