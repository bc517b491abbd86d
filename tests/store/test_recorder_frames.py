"""A streamed turn's TaskMessageUpdate frames, built by the recorder only when someone reads them,
are the frames ``TaskUpdateEncoder`` gives for the turn's events, each with the TaskMessage as
stored for its parent — whether the reader subscribed before the turn, joined in the middle of
it, or reads ``last_frames`` — and the stored contents are what the frames add up to.

Generated turns (hypothesis) on the real store: messages and thoughts interleaved, deltas that
open their message themselves, repeated starts, ends of unknown messages, whole events."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from turnwire import model as m
from turnwire.conversations.pubsub import LocalPubSub
from turnwire.conversations.recording import TurnRecorder, apply_delta
from turnwire.formats.agentex import TaskUpdateEncoder
from turnwire.store import SqlStore

IDS = st.sampled_from(["a", "b", "c"])
TEXT = st.sampled_from(["", "x", "yz", "é ", "1"])
EVENT = st.one_of(
    st.builds(m.MessageStart, id=IDS),
    st.builds(m.MessageDelta, id=IDS, delta=TEXT),
    st.builds(m.MessageEnd, id=IDS),
    st.builds(m.ThoughtStart, id=IDS),
    st.builds(m.ThoughtDelta, id=IDS, delta=TEXT),
    st.builds(m.ThoughtEnd, id=IDS),
    st.builds(m.MessageEvent, text=TEXT),
    st.builds(m.Thought, text=TEXT),
    st.builds(m.ToolCall, id=IDS, name=st.just("f"), input=st.just({"q": 1})),
    st.builds(m.DataEvent, name=st.just("d"), data=st.just({"k": [1, 2]})),
    st.builds(m.Usage, input=st.just(3), output=st.just(4), total=st.just(7)),
)
TURN = st.lists(EVENT, max_size=20).map(lambda events: [*events, m.Done(stop_reason="end_turn")])


async def _events(events: list[m.Event]) -> AsyncIterator[m.Event]:
    for event in events:
        yield event


def _drain(sub: Any) -> list[dict[str, Any]]:
    frames = []
    while not sub._queue.empty():
        frames.append(sub._queue.get_nowait())
    return frames


def _without_parent(frame: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in frame.items() if k != "parent_task_message"}


async def _turn(db_url: str, events: list[m.Event], join: int, read_last: bool) -> None:
    store = SqlStore(db_url)
    await store.open()
    try:
        task = (await store.create_task(name=f"frames-{uuid.uuid4().hex}"))["id"]
        pubsub = LocalPubSub()
        recorder = TurnRecorder(store, task, pubsub, flush_interval=60, message_id="m1", turn_id="t1")
        early = pubsub.subscribe(task)
        late = None
        returned: list[dict[str, Any]] = []
        seen = 0
        async for _ in recorder.record(_events(events)):
            if read_last:
                returned += recorder.last_frames
            seen += 1
            if seen == join:
                late = pubsub.subscribe(task)
        frames = _drain(early)
        late_frames = _drain(late) if late is not None else []
        stored = await store.list_messages(task, limit=1000, descending=False)
    finally:
        await store.close()

    # The frames are the encoder's, event for event.
    encoder = TaskUpdateEncoder(task)
    per_event = [encoder.encode(event) for event in events]
    expected = [frame for frames_of in per_event for frame in frames_of]
    of_events = len(expected)
    # ... then a ``done`` for each message still open when the turn ended (the recorder closes it).
    starts = [f["index"] for f in expected if f["type"] == "start"]
    ended = {f["index"] for f in expected if f["type"] == "done"}
    expected += [{"type": "done", "index": i} for i in starts if i not in ended]
    assert [_without_parent(f) for f in frames] == [_without_parent(f) for f in expected]
    if read_last:
        assert orjson.dumps(returned) == orjson.dumps(frames[:of_events])
    # A reader that joined after event ``join`` got exactly what the first reader got from then on.
    if late is not None:
        offset = sum(len(frames_of) for frames_of in per_event[:join])
        assert orjson.dumps(late_frames) == orjson.dumps(frames[offset:])
    # A delta that opened its message went out with its start, before the message had a parent.
    opening = [
        len(frames_of) == 2 and frames_of[0]["type"] == "start" for frames_of in per_event for _ in frames_of
    ] + [False] * (len(expected) - of_events)

    # Parents: the TaskMessage as it started while the message streams, as stored once it ended.
    rows = {row["id"]: row for row in stored}
    contents: dict[int, dict[str, Any]] = {}
    started: dict[int, dict[str, Any]] = {}
    for n, frame in enumerate(frames):
        parent, index = frame["parent_task_message"], frame["index"]
        if frame["type"] == "start":
            started[index] = parent
            assert parent["streaming_status"] == "IN_PROGRESS" and parent["content"] == frame["content"]
            contents[index] = orjson.loads(orjson.dumps(frame["content"]))
        elif frame["type"] == "delta":
            assert parent is (None if opening[n] else started[index])
            apply_delta(contents[index], frame["delta"])
        else:
            row = rows[parent["id"]]
            assert parent == {**row, "content": _public(row["content"])}
            if frame["type"] == "done":
                assert parent["content"] == contents.pop(index)
                assert parent["created_at"] == started[index]["created_at"]
    # Every output content is stored, DONE, and the recorder's finals are those rows.
    assert all(row["streaming_status"] == "DONE" for row in stored)
    assert sorted(f["id"] for f in recorder.finals) == sorted(rows)
    assert recorder.finals == [
        {**rows[f["id"]], "content": _public(rows[f["id"]]["content"])} for f in recorder.finals
    ]


def _public(content: dict[str, Any]) -> dict[str, Any]:
    """A stored content as an Agentex reader gets it: as stored (its note is kept beside it)."""
    return content


@pytest.mark.parametrize("read_last", [False, True], ids=["subscribers", "last_frames"])
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(events=TURN, join=st.integers(min_value=0, max_value=22))
def test_frames_read_at_any_point_are_the_encoders_with_the_stored_parents(
    db_url: str, read_last: bool, events: list[m.Event], join: int
) -> None:
    asyncio.run(_turn(db_url, events, join, read_last))
