"""Custom events a turn streams are kept by the store beside the contents they were streamed next
to, in the same lists as sources so their stream order stays (no content of their own: the
Agentex record is unchanged), streamed and batch alike; every history read but an ai 7 reader's
reads the turn as if it had streamed none."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from turnwire.conversations.recording import TurnRecorder
from turnwire.conversations.rendered import render_conversation
from turnwire.conversations.stored import read_conversation
from turnwire.formats.vercel import ClientVersion
from turnwire.model import (
    CustomEvent,
    Done,
    Event,
    MessageDelta,
    MessageEnd,
    MessageStart,
    SourceUrl,
    ToolCall,
    ToolResult,
)
from turnwire.store import SqlStore

pytestmark = pytest.mark.anyio

FIRST = CustomEvent("acme.plan", {"steps": ["search", "answer"]})
MIDDLE = CustomEvent("acme.mark")  # no data
SOURCE = SourceUrl(id="s1", url="https://example.com/tides")
LAST = CustomEvent("acme.done", [1, "two", None])


async def _turn(customs: bool = True) -> AsyncIterator[Event]:
    events: list[Event] = [
        FIRST,  # before any content of the turn
        ToolCall(id="c1", name="search", input={"q": "tides"}),
        ToolResult(id="c1", name="search", output="2 found"),
        MessageStart(id="m1"),
        MessageDelta(id="m1", delta="Here "),
        MIDDLE,  # while the text streams, before a source beside the same text
        SOURCE,
        MessageDelta(id="m1", delta="they are."),
        MessageEnd(id="m1"),
        LAST,  # after the turn's last content
        Done("end_turn"),
    ]
    for event in events:
        if customs or not isinstance(event, CustomEvent):
            yield event


async def _record(store: SqlStore, batch: bool, customs: bool = True) -> str:
    task = (await store.create_task(name=f"customs-{batch}-{customs}"))["id"]
    user = {
        "type": "text",
        "author": "user",
        "style": "static",
        "format": "plain",
        "content": "tides?",
        "attachments": None,
    }
    await store.create_messages(task, [user], notes=[{"message_id": "u1"}])
    recorder = TurnRecorder(store, task, batch=batch, message_id="a1", turn_id="trace-1")
    async for _ in recorder.record(_turn(customs)):
        pass
    return task


@pytest.mark.parametrize("batch", [False, True], ids=["streamed", "batch"])
async def test_custom_events_are_noted_beside_the_contents_in_stream_order(
    store: SqlStore, batch: bool
) -> None:
    stored = await read_conversation(store, await _record(store, batch))
    # The records are the Agentex contents alone: the user's text, the call, its result, the text.
    assert [m.record["content"]["type"] for m in stored] == ["text", "tool_request", "tool_response", "text"]
    call, text = stored[1].note, stored[3].note
    assert call["sources_before"] == [
        {"type": "custom", "kind": "acme.plan", "data": {"steps": ["search", "answer"]}}
    ]
    assert text["sources_after"] == [
        {"type": "custom", "kind": "acme.mark"},
        {"type": "source_url", "id": "s1", "url": "https://example.com/tides"},
        {"type": "custom", "kind": "acme.done", "data": [1, "two", None]},
    ]
    assert "sources_before" not in text and "sources_after" not in call
    assert not any(k.startswith("sources_") for k in stored[2].note)


def _strip_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _strip_ids(v)
            for k, v in value.items()
            if k not in ("id", "task_id", "created_at", "updated_at")
        }
    if isinstance(value, list):
        return [_strip_ids(v) for v in value]
    return value


@pytest.mark.parametrize("fmt", ["vercel", "responses", "agenta", "agui", "openai", "a2a", "agentex"])
async def test_readers_without_custom_parts_read_the_turn_as_without_them(store: SqlStore, fmt: str) -> None:
    with_customs = await read_conversation(store, await _record(store, batch=False))
    without = await read_conversation(store, await _record(store, batch=False, customs=False))
    a = render_conversation(with_customs, fmt, "sess")
    b = render_conversation(without, fmt, "sess")
    assert _strip_ids(a) == _strip_ids(b)
    if fmt == "vercel":  # the source between the customs is still read back where it streamed
        parts = [p["type"] for p in a[1]["parts"] if p["type"] != "step-start"]
        assert parts == ["tool-search", "text", "source-url"]


@pytest.mark.parametrize("batch", [False, True], ids=["streamed", "batch"])
async def test_an_ai7_reader_gets_custom_parts_where_the_stream_sent_them(
    store: SqlStore, batch: bool
) -> None:
    stored = await read_conversation(store, await _record(store, batch))
    ui = render_conversation(stored, "vercel", "sess", ClientVersion.V7)
    assert [m["id"] for m in ui] == ["u1", "a1"]
    # The parts ai 7's processUIMessageStream pushes for the stream of ``_turn`` (docs/vercel.md):
    # a step opens the turn, another the text after the tool result; each custom chunk is a part.
    parts = ui[1]["parts"]
    assert [p["type"] for p in parts] == [
        "step-start",
        "custom",
        "tool-search",
        "step-start",
        "text",
        "custom",
        "source-url",
        "custom",
    ]
    assert parts[1] == {
        "type": "custom",
        "kind": "acme.plan",
        "providerMetadata": {"turnwire": {"data": FIRST.data}},
    }
    assert parts[5] == {"type": "custom", "kind": "acme.mark"}
    assert parts[6] == {"type": "source-url", "sourceId": "s1", "url": "https://example.com/tides"}
    assert parts[7] == {
        "type": "custom",
        "kind": "acme.done",
        "providerMetadata": {"turnwire": {"data": LAST.data}},
    }
    # Older clients and DEFAULT hold none of them.
    for version in (ClientVersion.DEFAULT, ClientVersion.V6, ClientVersion.V5, None):
        parts = render_conversation(stored, "vercel", "sess", version)[1]["parts"]
        assert [p["type"] for p in parts if p["type"] == "custom"] == [], version


async def test_a_custom_event_of_a_turn_without_content_is_not_kept(store: SqlStore) -> None:
    task = (await store.create_task(name="only-custom"))["id"]
    recorder = TurnRecorder(store, task, message_id="a1", turn_id="trace-1")

    async def _events() -> AsyncIterator[Event]:
        yield FIRST
        yield Done("end_turn")

    async for _ in recorder.record(_events()):
        pass
    assert await read_conversation(store, task) == []
