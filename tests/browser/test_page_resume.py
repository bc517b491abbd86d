"""Stopping an answer and reloading the page mid-answer.

The page calls ``chat.stop()`` and ``POST {prefix}/chat/{id}/stop``, and on load ``resumeStream()``
(``GET {prefix}/chat/{id}/stream``, the AI SDK's ``resume: true``). Both routes belong to the
resumable-streams work (issue 18); without them the page must still work (a 404 there is quiet).
The real routes serve the reload test; a stand-in pins the page's side of the replay.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from chat_page import PageProblems, assistant, chat_id, open_page, screenshot, send, wait_idle
from page_agents import page_test_agents
from playwright.sync_api import Browser, Page, expect
from starlette.responses import Response

from services import serve_app
from turnwire.server import Settings, create_app

pytestmark = pytest.mark.browser


def numbers(page: Page) -> list[str]:
    """The numbers of a ``count to`` answer, one text part each, in order."""
    return [text.strip() for text in assistant(page).locator(".md").all_inner_texts()]


def test_stop_ends_the_answer_and_the_partial_reply_stays_after_reload(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "count to 100")  # 5 s: Stop comes well before the end even on a busy machine
    expect(assistant(page)).to_contain_text("3")
    stop = page.get_by_role("button", name="Stop")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/stop")) as stopped:
        stop.click()
    assert stopped.value.url == f"{server_url}chat/{chat_id(page)}/stop"
    wait_idle(page)
    shown = numbers(page)
    assert 3 <= len(shown) < 100
    assert shown == [str(n) for n in range(1, len(shown) + 1)]
    page.wait_for_timeout(500)  # a stopped answer does not go on
    assert numbers(page) == shown
    page.reload()
    expect(page.locator("article.msg.user")).to_contain_text("count to 100")
    expect(assistant(page)).to_contain_text("3")
    kept = numbers(page)
    # What was on screen when Stop was pressed is stored, and the answer stopped there: the server
    # may have sent a few numbers more before the stop reached it (more on a loaded machine), never
    # the rest of the count.
    assert kept[: len(shown)] == shown
    assert kept == [str(n) for n in range(1, len(kept) + 1)] and len(kept) < 100
    expect(page.get_by_role("button", name="Send")).to_be_visible()
    screenshot(page, "stopped-after-reload")


def test_a_reload_mid_answer_resumes_the_stream(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "count to 60")
    expect(assistant(page)).to_contain_text("5")
    with page.expect_request(re.compile(r"/chat/[^/]+/stream$")):
        page.reload()
    # The answer goes on after the reload, ends complete, and no number is shown twice.
    expect(assistant(page)).to_contain_text("60", timeout=10_000)
    wait_idle(page)
    assert numbers(page) == [str(n) for n in range(1, 61)]
    expect(page.locator("article.msg.assistant[data-message-id]")).to_have_count(1)
    screenshot(page, "resumed-after-reload")


def test_escape_in_the_composer_stops_the_answer(page: Page, server_url: str) -> None:
    page.goto(server_url)
    send(page, "count to 100")
    expect(assistant(page)).to_contain_text("3")
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/stop")):
        page.get_by_role("textbox", name="Message").press("Escape")
    wait_idle(page)
    assert len(numbers(page)) < 100
    expect(assistant(page)).to_contain_text("You stopped this answer.")


class StandInStream:
    """Stand-in for ``GET /chat/{id}/stream`` (issue 18) as the AI SDK's transport expects it: 204
    when no turn runs, else the running turn's UI Message Stream from its first chunk. It checks the
    page's side of the contract: the right URL, and a replay that replaces the stored partial
    message (same ``start.messageId``) instead of adding a second one."""

    def __init__(self) -> None:
        self.running: dict[str, str] = {}  # chat id -> assistant message id being "written"
        self.asked: list[str] = []

    async def __call__(self, chat_id: str) -> Response:
        self.asked.append(chat_id)
        message_id = self.running.pop(chat_id, None)
        if message_id is None:
            return Response(status_code=204)
        chunks = [
            {"type": "start", "messageId": message_id},
            {"type": "start-step"},
            {"type": "text-start", "id": "t1"},
            *(
                {"type": "text-delta", "id": "t1", "delta": word}
                for word in ("Replayed ", "from ", "the ", "start.")
            ),
            {"type": "text-end", "id": "t1"},
            {"type": "finish-step"},
            {"type": "finish", "finishReason": "stop"},
        ]
        body = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        headers = {"x-vercel-ai-ui-message-stream": "v1", "cache-control": "no-cache"}
        return Response(body, media_type="text/event-stream", headers=headers)


def test_the_page_takes_a_resumed_stream_in_place_of_the_stored_message(
    browser: Browser, problems: PageProblems, tmp_path: Path
) -> None:
    stream = StandInStream()
    settings = Settings(
        db_url=f"sqlite:///{tmp_path / 'db.sqlite'}", approval_secret_file=str(tmp_path / "s")
    )
    app = create_app(page_test_agents(), settings=settings)
    app.add_api_route("/chat/{chat_id}/stream", stream, methods=["GET"])
    app.router.routes.insert(0, app.router.routes.pop())  # ahead of the real resume route
    page = open_page(browser, problems)
    try:
        with serve_app(app) as url:
            page.goto(url + "/")
            send(page, "hello there")
            expect(assistant(page)).to_contain_text("You said: hello there")
            wait_idle(page)
            chat = chat_id(page)
            stored = httpx.get(f"{url}/tasks/{chat}/messages", params={"format": "vercel"}).json()["messages"]
            stream.running[chat] = stored[-1]["id"]
            page.reload()
            expect(assistant(page)).to_contain_text("Replayed from the start.")
            expect(page.locator("article.msg.assistant[data-message-id]")).to_have_count(1)
            expect(assistant(page)).not_to_contain_text("You said")
            wait_idle(page)
            # Nothing running any more: the next load asks, gets 204, and shows the store.
            page.reload()
            expect(assistant(page)).to_contain_text("You said: hello there")
            wait_idle(page)
            assert stream.asked == [chat, chat]
    finally:
        page.context.close()
    problems.check()
