"""AG-UI ids survive the round trip: the messages a client assembled from its runs (ids included)
are the thread read back with ``?format=agui`` — over generated event sequences (interleaved and
reopened messages, calls with and without a text before them, results, reasoning, activities),
across runs in one thread, across approval and question resumes, and for a second client that
loads the history and goes on."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import orjson
from agui_assembly import apply_events
from fidelity_wire import stored
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_round_trip_agui import agui_run

_text = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=6)
_k = st.integers(0, 2)
_step = st.one_of(
    st.tuples(st.just("text"), _text),
    st.tuples(st.just("start"), _k),
    st.tuples(st.just("delta"), _k, _text),
    st.tuples(st.just("end"), _k),
    st.tuples(st.just("thought"), _text),
    st.tuples(st.just("tstart"), _k),
    st.tuples(st.just("tdelta"), _k, _text),
    st.tuples(st.just("tend"), _k),
    st.tuples(st.just("call")),
    st.tuples(st.just("result"), st.integers(0, 4), _text),
    st.tuples(st.just("data"), st.sampled_from(["card", "tick"]), st.integers(-99, 99), st.booleans()),
)


def _numbered(steps: list[tuple[Any, ...]]) -> list[list[Any]]:
    """Each call gets the next number of its turn (a call id is used once per turn); a result
    answers a call made before it, once, with no text between them.

    Left out as they are no id question: a result for a call never made (the stream drops it, the
    store keeps it), a second result (the client re-sends it) and a text, reasoning or data between
    a call and its result (the client holds the result right after the call): each makes the
    client's next history differ from the stored order, so the store rewinds to the client's view,
    which lacks the activity messages clients do not send back.
    """
    out: list[list[Any]] = []
    calls: list[int] = []  # per call: how many texts, thoughts and data came before it
    texts, answered = 0, set()
    for step in steps:
        kind = step[0]
        if kind == "call":
            out.append(["call", len(calls)])
            calls.append(texts)
            continue
        if kind in ("text", "start", "delta", "thought", "tstart", "tdelta", "data"):
            texts += 1
        if kind == "result":
            k = step[1] % len(calls) if calls else -1
            if k < 0 or k in answered or calls[k] != texts:
                continue
            answered.add(k)
            out.append(["result", k, step[2]])
        else:
            out.append(list(step))
    return out


_turn = st.lists(_step, min_size=1, max_size=10).map(_numbered)


def _without_error(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``TOOL_CALL_RESULT`` carries no error field: a client never holds one."""
    return [{k: v for k, v in m.items() if k != "error"} for m in messages]


def _run(
    url: str, thread: str, client: list[dict[str, Any]], agent: str, **extra: Any
) -> list[dict[str, Any]]:
    """``client`` after one run (its interrupts, if it paused, in ``_pending[thread]``)."""
    body = {
        "threadId": thread,
        "runId": uuid.uuid4().hex,
        # prepareRunAgentInput: the client sends every message but its activity messages
        "messages": [m for m in client if m["role"] != "activity"],
        **extra,
    }
    events = agui_run(url, body, agent)
    assert events[-1]["type"] == "RUN_FINISHED", events
    _pending[thread] = events[-1]["outcome"].get("interrupts", [])
    return apply_events(client, events)


_pending: dict[str, list[dict[str, Any]]] = {}


def _ids(messages: list[dict[str, Any]]) -> list[str]:
    return [m["id"] for m in messages]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=st.lists(_turn, min_size=1, max_size=3), last=_turn)
# A message reopened in a later step takes no call: the call joins the one made since.
@example(
    turns=[
        [
            ["start", 0],
            ["delta", 0, "a"],
            ["call", 0],
            ["result", 0, "r"],
            ["call", 1],
            ["delta", 0, "b"],
            ["call", 2],
        ]
    ],
    last=[
        ["thought", "t"],
        ["call", 0],
        ["call", 1],
        ["data", "card", 1, False],
        ["call", 2],
        ["result", 2, "x"],
    ],
)
def test_generated_runs_read_back_with_the_ids_the_client_holds(
    server: str, turns: list[list[Any]], last: list[Any]
) -> None:
    thread = f"ids-agui-{uuid.uuid4().hex}"
    client: list[dict[str, Any]] = []
    for n, steps in enumerate(turns):
        client.append({"id": f"u-{n}", "role": "user", "content": orjson.dumps(steps).decode()})
        client = _run(server, thread, client, "events")
        assert _without_error(stored(server, thread, "agui")) == _without_error(client)
    ids = _ids(client)
    assert len(set(ids)) == len(ids)  # unique within the thread, as AG-UI requires
    # A second client loads the thread and goes on: its history is the first client's.
    other = stored(server, thread, "agui")
    other.append({"id": "u-last", "role": "user", "content": orjson.dumps(last).decode()})
    other = _run(server, thread, other, "events")
    assert _without_error(stored(server, thread, "agui")) == _without_error(other)
    assert _ids(other)[: len(ids)] == ids


def test_approval_and_question_resumes_keep_the_ids(server: str) -> None:
    thread = f"ids-agui-{uuid.uuid4().hex}"

    def say(client: list[dict[str, Any]], text: str) -> list[dict[str, Any]]:
        message = {"id": f"u-{uuid.uuid4().hex[:8]}", "role": "user", "content": text}
        return _run(server, thread, [*client, message], "demo")

    def resume(client: list[dict[str, Any]], payload: dict[str, Any]) -> list[dict[str, Any]]:
        (interrupt,) = _pending[thread]
        answer = {"interruptId": interrupt["id"], "status": "resolved", "payload": payload}
        return _run(server, thread, client, "demo", resume=[answer])

    client = say([], "weather in Oslo")
    client = say(client, "delete notes.txt")
    assert stored(server, thread, "agui") == client  # paused: the call, no result yet
    client = resume(client, {"approved": True})
    client = resume(say(client, "delete x.txt"), {"approved": False})
    client = say(client, "ask me")
    (question,) = _pending[thread]
    client = resume(client, {"text": "blue"})
    history = stored(server, thread, "agui")
    assert _without_error(history) == _without_error(client)
    # The decisions are no message (the results are); the answer is the user message the run sent
    # in RUN_STARTED.input.
    assert [m["role"] for m in history].count("tool") == 3
    answers = [m for m in history if m["id"].startswith("resume:")]
    assert answers == [{"id": f"resume:{question['id']}", "role": "user", "content": "blue"}]
    assert history[-1]["content"] == "You answered: blue"
    # A second client loads the thread: the agent sees the answer, so the next message is a new one.
    other = say(history, "weather in Paris")
    assert other[-1]["content"] == "It is sunny and 21 °C in Paris."
    assert _without_error(stored(server, thread, "agui")) == _without_error(other)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(turns=st.lists(_turn, min_size=1, max_size=3))
def test_invoke_batch_answers_in_agui_form_are_what_the_history_reads_back(
    server: str, turns: list[list[Any]]
) -> None:
    """``/invoke`` with ``x-ag-messages-format: agui`` and a JSON answer: ``outputs.messages`` are
    the messages a streaming client would hold after the run, under the history's ids."""
    session = f"ids-agui-batch-{uuid.uuid4().hex}"
    expected: list[dict[str, Any]] = []
    for n, steps in enumerate(turns):
        user = {"id": f"u-{n}", "role": "user", "content": orjson.dumps(steps).decode()}
        r = httpx.post(
            f"{server}/agents/events/invoke",
            json={"session_id": session, "data": {"inputs": {"messages": [user]}}},
            headers={"x-ag-messages-format": "agui", "x-ag-history": "stored"},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        expected += [user, *r.json()["data"]["outputs"]["messages"]]
    assert _without_error(stored(server, session, "agui")) == _without_error(expected)
