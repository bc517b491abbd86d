"""The chat page in a real browser against a real server: messages, reasoning, tools, approvals,
user input, files, errors and the agent picker."""

from __future__ import annotations

import re

import httpx
import pytest
from chat_page import assistant, chat_id, composer, screenshot, send, tool_card, user_messages, wait_idle
from page_agents import RED_PNG
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser


def test_a_message_gets_a_streamed_reply_with_collapsible_reasoning(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "hello from the browser")
    reply = assistant(page)
    expect(reply).to_contain_text("You said: hello from the browser")
    expect(user_messages(page)).to_have_count(1)
    wait_idle(page)
    expect(composer(page)).to_be_focused()  # ready for the next message
    reasoning = reply.locator("details.reasoning")
    expect(reasoning).not_to_have_attribute("open", "")
    expect(reasoning.locator(".reasoning-text")).to_be_hidden()
    reasoning.locator("summary").click()
    expect(reasoning.locator(".reasoning-text")).to_have_text("The user said: hello from the browser.")
    screenshot(page, "message")


def test_a_long_answer_is_shown_while_it_streams(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "count to 60")
    reply = assistant(page)
    # Part of the answer is on screen while the Stop button still is: it arrives as it is written.
    expect(reply).to_contain_text("5")
    expect(page.get_by_role("button", name="Stop")).to_be_visible()
    expect(reply).not_to_contain_text("60")
    expect(reply).to_contain_text("60", timeout=20_000)
    wait_idle(page)


def test_the_weather_tool_call_is_a_card_with_input_and_output(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "weather in Paris")
    card = tool_card(page, "get_weather")
    expect(card).to_have_attribute("data-state", "output-available")
    expect(card.locator(".badge")).to_have_text("done")
    expect(card.locator(".io").first).to_contain_text('"city": "Paris"')
    expect(card.locator(".io").nth(1)).to_contain_text('"condition": "Sunny"')
    expect(assistant(page)).to_contain_text("It is sunny and 21 °C in Paris.")
    screenshot(page, "weather")


@pytest.mark.parametrize(
    ("button", "state", "reply"),
    [
        ("Approve", "output-available", "Deleted notes.txt."),
        ("Deny", "output-denied", "I did not delete notes.txt."),
    ],
)
def test_an_approval_is_answered_by_clicking(
    page: Page, server_url: str, button: str, state: str, reply: str
) -> None:
    page.goto(server_url)
    send(page, "delete notes.txt")
    card = tool_card(page, "delete_file")
    expect(card).to_have_attribute("data-state", "approval-requested")
    expect(card.locator(".badge")).to_have_text("needs approval")
    expect(card).to_contain_text('"path": "notes.txt"')
    screenshot(page, "approval-requested")
    card.get_by_role("button", name=button).click()
    # The chat resends itself (sendAutomaticallyWhen) and the same assistant message continues.
    expect(card).to_have_attribute("data-state", state)
    expect(assistant(page)).to_contain_text(reply)
    expect(page.locator("article.msg.assistant[data-message-id]")).to_have_count(1)
    expect(card.get_by_role("button", name=button)).to_have_count(0)
    screenshot(page, f"approval-{button.lower()}")


def test_an_approval_still_waits_after_a_reload(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "delete old.log")
    expect(tool_card(page, "delete_file")).to_have_attribute("data-state", "approval-requested")
    wait_idle(page)
    page.reload()
    card = tool_card(page, "delete_file")
    expect(card).to_have_attribute("data-state", "approval-requested")
    card.get_by_role("button", name="Approve").click()
    expect(assistant(page)).to_contain_text("Deleted old.log.")
    expect(card).to_have_attribute("data-state", "output-available")


def test_a_reload_reads_the_conversation_for_the_pages_ai_sdk_version(page: Page, server_url: str) -> None:
    """The page is an ai 7 chat: its history read asks for what an ai 7 chat keeps (custom parts)."""
    page.goto(server_url)
    send(page, "hello again")
    expect(assistant(page)).to_contain_text("You said: hello again")
    wait_idle(page)
    with page.expect_request(lambda r: "/messages?format=vercel" in r.url) as read:
        page.reload()
    assert read.value.headers.get("x-ai-sdk-version") == "7"
    expect(assistant(page)).to_contain_text("You said: hello again")


def test_an_approval_can_be_answered_with_the_keyboard(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "delete draft.md")
    card = tool_card(page, "delete_file")
    expect(card).to_have_attribute("data-state", "approval-requested")
    approve = card.get_by_role("button", name="Approve")
    composer(page).focus()
    for _ in range(10):  # Shift+Tab back from the composer to the Approve button
        if page.evaluate("document.activeElement?.textContent") == "Approve":
            break
        page.keyboard.press("Shift+Tab")
    expect(approve).to_be_focused()
    page.keyboard.press("Enter")
    expect(assistant(page)).to_contain_text("Deleted draft.md.")


def test_a_user_input_request_is_answered_in_its_text_box(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "ask me")
    question = page.get_by_role("form", name="The agent asks")
    expect(question).to_contain_text("What should I echo?")
    answer = question.get_by_role("textbox")
    expect(answer).to_be_focused()
    screenshot(page, "ask-me")
    answer.fill("purple rain")
    question.get_by_role("button", name="Answer").click()
    expect(assistant(page)).to_contain_text("You answered: purple rain")
    # Answered: the box is gone, the question stays readable.
    expect(page.get_by_role("form", name="The agent asks")).to_have_count(0)
    expect(assistant(page, 0)).to_contain_text("What should I echo?")


def test_model_output_cannot_inject_html(page: Page, server_url: str) -> None:
    page.goto(server_url)
    attack = "<img src=x onerror=alert(1)> [click](javascript:alert(2)) <script>alert(3)</script> **bold**"
    send(page, attack)
    reply = assistant(page)
    expect(reply).to_contain_text("You said: <img src=x onerror=alert(1)>")
    expect(reply).to_contain_text("<script>alert(3)</script>")
    expect(reply.locator("strong")).to_have_text("bold")  # markdown still works
    wait_idle(page)
    assert page.locator(".log img").count() == 0
    assert page.locator(".log script").count() == 0
    # A javascript: link target is never made a link.
    assert page.locator(".log a").count() == 0
    expect(user_messages(page).last).to_contain_text("<img src=x onerror=alert(1)>")
    screenshot(page, "html-as-text")  # the fixture fails the test if alert() ran


MARKDOWN = """# Plan
Some **bold**, *italic*, `code` and a [safe link](https://example.com/docs).

- first
- second

1. one
2. two

```python
print("<b>hi</b>")
```

| city | weather |
|---|---|
| Paris | sunny |

> quoted

[bad link](javascript:alert(1)) [data link](data:text/html,<script>alert(1)</script>)
![tracker](https://tracker.example/pixel.png) <b>not bold</b>"""


def test_replies_are_rendered_as_markdown_without_html(page: Page, server_url: str) -> None:
    page.goto(server_url)
    page.get_by_role("combobox", name="Agent").select_option("parrot")
    send(page, MARKDOWN)
    md = assistant(page).locator(".md")
    expect(md.locator("h3")).to_have_text("Plan")
    expect(md.locator("p strong").first).to_have_text("bold")
    expect(md.locator("p em")).to_have_text("italic")
    expect(md.locator("p code")).to_have_text("code")
    expect(md.locator("ul li")).to_have_text(["first", "second"])
    expect(md.locator("ol li")).to_have_text(["one", "two"])
    expect(md.locator("pre code")).to_have_text('print("<b>hi</b>")')
    expect(md.locator("table td")).to_have_text(["Paris", "sunny"])
    expect(md.locator("blockquote")).to_have_text("quoted")
    links = md.locator("a")
    # Only the https links are links: the docs link, and the image, shown as a link and never loaded.
    expect(links).to_have_count(2)
    expect(links.first).to_have_attribute("href", "https://example.com/docs")
    expect(links.first).to_have_attribute("rel", "noopener noreferrer nofollow")
    expect(links.nth(1)).to_have_text("image: tracker")
    expect(md).to_contain_text("[bad link](javascript:alert(1))")
    expect(md).to_contain_text("<b>not bold</b>")
    assert md.locator("img, b, script").count() == 0
    screenshot(page, "markdown")


def test_agent_errors_are_shown(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "fail")
    reply = assistant(page)
    expect(reply.get_by_role("alert")).to_contain_text("demo failure requested")
    # The wire's text says what failed; the page adds no second "failed" label before it.
    alert = reply.get_by_role("alert")
    expect(alert).to_have_text(re.compile(r"^Agent run failed: [^:]*demo failure requested"))
    expect(reply).to_contain_text("Starting…")
    wait_idle(page)
    screenshot(page, "agent-error")


def test_a_refused_request_is_explained(page: Page, server_url: str) -> None:
    # A conversation started with an agent the server no longer serves: /agents/ghost/chat is a 404.
    page.goto(server_url)
    page.evaluate("localStorage.setItem('turnwire.chatAgents', JSON.stringify({'chat-ghost-1': 'ghost'}))")
    page.goto(server_url + "#chat-ghost-1")
    # A fragment change opens the conversation on `hashchange`, after goto returns: wait for it to show.
    expect(page.locator(".empty-chat")).to_contain_text("Talk to ghost")
    send(page, "anyone there?")
    banner = page.locator(".log > .agent-error")
    expect(banner).to_have_text(re.compile(r"^Error: Unknown agent: ghost"))
    banner.get_by_role("button", name="Dismiss").click()
    expect(banner).to_have_count(0)
    expect(page.get_by_role("button", name="Send")).to_be_visible()


def test_files_are_sent_and_images_shown(page: Page, server_url: str) -> None:
    page.goto(server_url)
    page.locator("input[type=file]").set_input_files(
        [{"name": "note.txt", "mimeType": "text/plain", "buffer": b"hello file"}]
    )
    expect(page.locator(".attachments")).to_contain_text("note.txt")
    send(page, "here is a file")
    expect(user_messages(page).last.locator(".file")).to_contain_text("note.txt")
    expect(assistant(page)).to_contain_text("You said: here is a file")
    # An agent's image (a data: URL) is shown inline.
    page.get_by_role("combobox", name="Agent").select_option("painter")
    send(page, "paint")
    image = assistant(page).locator("figure.image img")
    expect(image).to_have_attribute("src", RED_PNG)
    expect(assistant(page)).to_contain_text("Here is a red picture.")
    screenshot(page, "files")


def test_the_agent_picker_talks_to_the_chosen_agent(page: Page, server_url: str) -> None:
    page.goto(server_url)
    picker = page.get_by_role("combobox", name="Agent")
    expect(picker).to_have_value("demo")
    expect(picker.locator("option")).to_have_text(["demo", "shout", "painter", "parrot"])
    picker.select_option("shout")
    with page.expect_request(re.compile(r"/agents/shout/chat$")):
        send(page, "quiet please")
    expect(assistant(page)).to_contain_text("SHOUTED: QUIET PLEASE")
    # The conversation remembers its agent: reopening it keeps talking to shout.
    page.reload()
    expect(page.get_by_role("combobox", name="Agent")).to_have_value("shout")
    send(page, "again")
    expect(assistant(page)).to_contain_text("SHOUTED: AGAIN")


def test_an_older_conversation_opens_from_the_sidebar_and_continues(
    page: Page, server_url: str, browser, problems
) -> None:
    # A conversation made by another client (no trace of it in this browser's storage).
    older = f"older-{page.evaluate('Date.now()')}"
    with httpx.Client(base_url=server_url, timeout=10) as client:
        body = {
            "id": older,
            "messages": [
                {"id": "u1", "role": "user", "parts": [{"type": "text", "text": "weather in Oslo"}]}
            ],
        }
        assert client.post("chat", json=body).status_code == 200
    page.goto(server_url)
    send(page, "a newer conversation")
    expect(assistant(page)).to_contain_text("You said: a newer conversation")
    entry = page.get_by_role("navigation", name="Conversations").get_by_role(
        "button", name=re.compile("weather in Oslo")
    )
    expect(entry.first).to_be_visible()
    entry.first.click()
    expect(page.locator("article.msg.user").first).to_contain_text("weather in Oslo")
    expect(tool_card(page, "get_weather")).to_contain_text('"city": "Oslo"')
    assert chat_id(page) == older
    send(page, "thanks")
    expect(assistant(page)).to_contain_text("You said: thanks")
    wait_idle(page)
    screenshot(page, "sidebar-continue")
    # Back returns to the conversation opened before.
    page.go_back()
    expect(assistant(page)).to_contain_text("You said: a newer conversation")
    expect(page.locator("article.msg.user")).to_have_count(1)
    # The server holds the continued conversation under the same id.
    with httpx.Client(base_url=server_url, timeout=10) as client:
        stored = client.get(f"tasks/{older}/messages", params={"format": "vercel"}).json()["messages"]
    texts = [p.get("text") for m in stored for p in m["parts"] if p["type"] == "text"]
    assert texts[0] == "weather in Oslo"
    assert texts[-2:] == ["thanks", "You said: thanks"]
