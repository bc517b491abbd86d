"""The sidebar of conversations: newest activity first (GET /conversations, one request a page),
more as it scrolls, search, rename and delete with a confirmation."""

from __future__ import annotations

import re
import uuid

import httpx
import pytest
from chat_page import screenshot, send, wait_idle
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def _chat(client: httpx.Client, chat_id: str, *texts: str) -> None:
    history: list[dict] = []
    for i, text in enumerate(texts):
        history.append({"id": f"{chat_id}-u{i}", "role": "user", "parts": [{"type": "text", "text": text}]})
        assert client.post("chat", json={"id": chat_id, "messages": history}).status_code == 200
        history.append(
            {
                "id": f"{chat_id}-a{i}",
                "role": "assistant",
                "parts": [{"type": "text", "text": f"You said: {text}"}],
            }
        )


def _sidebar(page: Page):
    return page.get_by_role("navigation", name="Conversations")


def test_the_sidebar_lists_by_last_activity_and_searches(page: Page, server_url: str) -> None:
    tag = uuid.uuid4().hex[:6]
    with httpx.Client(base_url=server_url, timeout=10) as client:
        _chat(client, f"a-{tag}", f"alpha {tag}")
        _chat(client, f"b-{tag}", f"bravo {tag}")
        _chat(client, f"a-{tag}", f"alpha {tag}", "more alpha")  # alpha is active again: first
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(server_url)
    titles = _sidebar(page).locator(".task-title")
    expect(titles.first).to_have_text(f"alpha {tag}")
    expect(titles.nth(1)).to_have_text(f"bravo {tag}")
    # One request for the list with its titles, none per conversation.
    assert not [u for u in requests if "/messages?task_id=" in u]
    _sidebar(page).get_by_role("searchbox", name="Search conversations").fill(f"bravo {tag}")
    expect(titles).to_have_text([f"bravo {tag}"])
    _sidebar(page).get_by_role("searchbox", name="Search conversations").fill(f"nothing-{tag}")
    expect(_sidebar(page)).to_contain_text("No conversation matches.")


def test_rename_and_delete_a_conversation(page: Page, server_url: str) -> None:
    tag = uuid.uuid4().hex[:6]
    with httpx.Client(base_url=server_url, timeout=10) as client:
        _chat(client, f"r-{tag}", f"rename me {tag}")
        _chat(client, f"d-{tag}", f"delete me {tag}")
    page.goto(server_url)
    search = _sidebar(page).get_by_role("searchbox", name="Search conversations")
    search.fill(tag)
    row = _sidebar(page).locator("li.conversation", has_text=f"rename me {tag}")
    row.hover()
    row.get_by_role("button", name="Rename", exact=True).click()
    box = _sidebar(page).get_by_role("textbox", name="New title")
    box.fill(f"Renamed {tag}")
    box.press("Enter")
    expect(_sidebar(page).get_by_role("button", name=re.compile(f"Renamed {tag}"))).to_be_visible()
    page.reload()
    _sidebar(page).get_by_role("searchbox", name="Search conversations").fill(tag)
    expect(_sidebar(page).locator(".task-title", has_text=f"Renamed {tag}")).to_be_visible()
    doomed = _sidebar(page).locator("li.conversation", has_text=f"delete me {tag}")
    doomed.hover()
    doomed.get_by_role("button", name="Delete", exact=True).click()
    confirm = doomed.get_by_role("group", name=re.compile("Delete"))
    confirm.get_by_role("button", name="Cancel").click()
    expect(doomed.get_by_role("button", name="Delete", exact=True)).to_have_count(1)
    doomed.hover()
    doomed.get_by_role("button", name="Delete", exact=True).click()
    screenshot(page, "sidebar-delete-confirm")
    doomed.get_by_role("button", name="Yes, delete").click()
    expect(_sidebar(page).locator(".task-title", has_text=f"delete me {tag}")).to_have_count(0)
    with httpx.Client(base_url=server_url, timeout=10) as client:
        assert client.get(f"tasks/name/d-{tag}").status_code == 404


def test_more_conversations_load_as_the_sidebar_scrolls(page: Page, more_server_url: str) -> None:
    tag = uuid.uuid4().hex[:6]
    with httpx.Client(base_url=more_server_url, timeout=10) as client:
        for i in range(36):
            _chat(client, f"s{i}-{tag}", f"scroll {i:02d} {tag}")
    page.goto(more_server_url)
    titles = _sidebar(page).locator(".task-title", has_text=tag)
    expect(titles).to_have_count(30)  # the first page
    expect(titles.first).to_have_text(f"scroll 35 {tag}")
    _sidebar(page).get_by_text("Loading more…").scroll_into_view_if_needed()
    expect(titles).to_have_count(36)
    expect(titles.last).to_have_text(f"scroll 00 {tag}")


def test_a_page_overtaken_by_a_fresh_read_of_the_list_still_arrives(page: Page, more_server_url: str) -> None:
    """The next page is held on the wire while an answer ends (which reads the first page again):
    the overtaken page is asked for again, and the sidebar does not stop at "Loading more…"."""
    tag = uuid.uuid4().hex[:6]
    with httpx.Client(base_url=more_server_url, timeout=10) as client:
        for i in range(36):
            _chat(client, f"o{i}-{tag}", f"overtaken {i:02d} {tag}")
    firsts: list[str] = []

    def first_page(url: str) -> bool:
        return "/conversations?" in url and "cursor=" not in url

    page.on("request", lambda r: firsts.append(r.url) if first_page(r.url) else None)
    held: list = []
    # The first next-page request is held; those after it pass.
    page.route(
        re.compile(r"/conversations\?.*cursor="),
        lambda route: held.append(route) if not held else route.continue_(),
    )
    page.goto(more_server_url)
    titles = _sidebar(page).locator(".task-title", has_text=tag)
    expect(titles).to_have_count(30)
    page.wait_for_timeout(400)  # past the search box's pause: nothing typed, nothing asked again
    assert len(firsts) == 1, firsts  # one request for the first page on opening
    _sidebar(page).get_by_text("Loading more…").scroll_into_view_if_needed()
    for _ in range(50):  # the observer's request reaches the route
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1
    asked = f"an answer that ends while the next page is out {tag[:3]}"
    send(page, asked)
    wait_idle(page)
    expect(_sidebar(page).locator(".task-title").first).to_have_text(asked)
    held[0].continue_()
    expect(titles).to_have_count(36)
    expect(titles.last).to_have_text(f"overtaken 00 {tag}")


def test_a_new_conversation_goes_to_the_top_and_records_its_agent(page: Page, server_url: str) -> None:
    tag = uuid.uuid4().hex[:6]
    page.goto(server_url)
    page.get_by_role("combobox", name="Agent").select_option("shout")
    send(page, f"top {tag}")
    wait_idle(page)
    expect(_sidebar(page).locator(".task-title").first).to_have_text(f"top {tag}")
    # The page notes the agent once the answer has begun, without waiting for it: poll for it.
    agents: list[str | None] = []
    with httpx.Client(base_url=server_url, timeout=10) as client:
        for _ in range(100):
            found = client.get("conversations", params={"q": f"top {tag}"}).json()["conversations"]
            agents = [c["agent"] for c in found]
            if agents == ["shout"]:
                break
            page.wait_for_timeout(50)
    assert agents == ["shout"]
