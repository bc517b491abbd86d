"""Sources a turn streams are kept by the store beside the contents they were streamed next to (no
content of their own: the Agentex record is unchanged), streamed and batch alike, and read back
where the stream sent them: UIMessage ``source-*`` parts in their live position, Responses
``output_text`` annotations; formats that cannot hold a source read as before."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from turnwire.conversations.recording import TurnRecorder
from turnwire.conversations.rendered import render_conversation
from turnwire.conversations.stored import read_conversation
from turnwire.model import (
    Done,
    Event,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    ToolCall,
    ToolResult,
)
from turnwire.store import SqlStore

pytestmark = pytest.mark.anyio

URL = SourceUrl(id="s1", url="https://example.com/tides", title="Tides")
DOC = SourceDocument(id="s2", media_type="application/pdf", title="Notes", filename="notes.pdf")
LATE = SourceUrl(id="s3", url="https://example.com/moon")


async def _turn() -> AsyncIterator[Event]:
    yield URL  # before any content of the turn
    yield ToolCall(id="c1", name="search", input={"q": "tides"})
    yield ToolResult(id="c1", name="search", output="2 found")
    yield MessageStart(id="m1")
    yield MessageDelta(id="m1", delta="Here ")
    yield DOC  # while the text streams
    yield MessageDelta(id="m1", delta="they are.")
    yield MessageEnd(id="m1")
    yield LATE  # after the turn's last content
    yield Done("end_turn")


async def _record(store: SqlStore, batch: bool) -> str:
    task = (await store.create_task(name=f"sources-{batch}"))["id"]
    await store.create_messages(
        task,
        [
            {
                "type": "text",
                "author": "user",
                "style": "static",
                "format": "plain",
                "content": "tides?",
                "attachments": None,
            }
        ],
        notes=[{"message_id": "u1"}],
    )
    recorder = TurnRecorder(store, task, batch=batch, message_id="a1", turn_id="trace-1")
    async for _ in recorder.record(_turn()):
        pass
    return task


URL_PART = {"type": "source-url", "sourceId": "s1", "url": "https://example.com/tides", "title": "Tides"}
DOC_PART = {
    "type": "source-document",
    "sourceId": "s2",
    "mediaType": "application/pdf",
    "title": "Notes",
    "filename": "notes.pdf",
}
LATE_PART = {"type": "source-url", "sourceId": "s3", "url": "https://example.com/moon"}


@pytest.mark.parametrize("batch", [False, True], ids=["streamed", "batch"])
async def test_sources_read_back_as_ui_parts_where_the_stream_sent_them(store: SqlStore, batch: bool) -> None:
    task = await _record(store, batch)
    stored = await read_conversation(store, task)
    # The records are the Agentex contents alone: the user's text, the call, its result, the text.
    assert [m.record["content"]["type"] for m in stored] == ["text", "tool_request", "tool_response", "text"]
    ui = render_conversation(stored, "vercel", "sess")
    assert [m["id"] for m in ui] == ["u1", "a1"]
    parts = [p for p in ui[1]["parts"] if p["type"] != "step-start"]
    assert [p["type"] for p in parts] == [
        "source-url",
        "tool-search",
        "text",
        "source-document",
        "source-url",
    ]
    assert parts[0] == URL_PART
    assert parts[3] == DOC_PART
    assert parts[4] == LATE_PART
    # The stream's steps: one opens before the first part (the source), one before the text.
    assert ui[1]["parts"][0] == {"type": "step-start"}
    assert [p["type"] for p in ui[1]["parts"]].count("step-start") == 2


async def test_sources_read_back_as_responses_annotations(store: SqlStore) -> None:
    task = await _record(store, batch=False)
    items = render_conversation(await read_conversation(store, task), "responses")
    (message,) = [i for i in items if i["type"] == "message" and i["role"] == "assistant"]
    (text,) = message["content"]
    assert text["text"] == "Here they are."
    # Sources before a text are its citations; those after the answer's last text, too.
    assert text["annotations"] == [
        {"type": "url_citation", "url": URL.url, "title": "Tides", "start_index": 0, "end_index": 0},
        {"type": "file_citation", "file_id": "s2", "filename": "notes.pdf", "index": 0},
        {"type": "url_citation", "url": LATE.url, "title": LATE.url, "start_index": 0, "end_index": 0},
    ]


async def test_formats_without_sources_read_the_turn_as_before(store: SqlStore) -> None:
    with_sources = await _record(store, batch=False)
    plain = (await store.create_task(name="plain"))["id"]
    await store.create_messages(
        plain,
        [
            {
                "type": "text",
                "author": "user",
                "style": "static",
                "format": "plain",
                "content": "tides?",
                "attachments": None,
            }
        ],
        notes=[{"message_id": "u1"}],
    )

    async def _without() -> AsyncIterator[Event]:
        async for event in _turn():
            if not isinstance(event, SourceUrl | SourceDocument):
                yield event

    recorder = TurnRecorder(store, plain, message_id="a1", turn_id="trace-1")
    async for _ in recorder.record(_without()):
        pass

    def strip_ids(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: strip_ids(v)
                for k, v in value.items()
                if k not in ("id", "task_id", "created_at", "updated_at")
            }
        if isinstance(value, list):
            return [strip_ids(v) for v in value]
        return value

    for fmt in ("agenta", "agui", "openai", "a2a", "agentex"):
        a = render_conversation(await read_conversation(store, with_sources), fmt, "sess")
        b = render_conversation(await read_conversation(store, plain), fmt, "sess")
        assert strip_ids(a) == strip_ids(b), fmt


async def test_a_recorder_without_a_turn_notes_no_source(store: SqlStore) -> None:
    task = (await store.create_task(name="library"))["id"]
    recorder = TurnRecorder(store, task)

    async def _events() -> AsyncIterator[Event]:
        yield URL
        yield MessageEvent("hi")

    async for _ in recorder.record(_events()):
        pass
    (stored,) = await read_conversation(store, task)
    assert stored.note == {}
