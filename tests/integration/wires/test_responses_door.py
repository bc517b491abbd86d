"""The Responses door driven by the real ``openai`` Python SDK against a live server (the demo
agent): batch and streamed responses, stored state, approvals, client tools and errors."""

from __future__ import annotations

import json
import time

import httpx
import openai
import pytest
from openai import OpenAI
from openai.types.responses import ResponseStreamEvent
from pydantic import TypeAdapter


def _plain(value: object) -> object:
    """A dump without the ``parsed`` fields the SDK's stream helper adds to its own parsed types."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if k != "parsed"}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


@pytest.fixture
def client(wires_url: str) -> OpenAI:
    return OpenAI(base_url=f"{wires_url}/v1", api_key="unused", max_retries=0, timeout=20)


def test_basic_response_has_text_reasoning_and_usage(client: OpenAI) -> None:
    done = client.responses.create(model="demo", input="hello there")
    assert done.object == "response" and done.status == "completed" and done.model == "demo"
    assert done.output_text == "You said: hello there"
    kinds = [item.type for item in done.output]
    assert kinds == ["reasoning", "message"]
    assert done.output[0].summary[0].text == "The user said: hello there."
    assert done.usage is not None and done.usage.input_tokens == 2 and done.usage.output_tokens == 4
    assert done.error is None and done.store is True


def test_weather_tool_is_an_mcp_call_with_its_output(client: OpenAI) -> None:
    done = client.responses.create(model="demo", input="weather in Paris")
    (call,) = [item for item in done.output if item.type == "mcp_call"]
    assert call.server_label == "demo" and call.name == "get_weather"
    assert json.loads(call.arguments) == {"city": "Paris"}
    assert json.loads(call.output or "") == {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
    assert call.error is None
    assert done.output_text == "It is sunny and 21 °C in Paris."
    assert not [item for item in done.output if item.type == "function_call"]


def test_retrieve_returns_the_batch_answer(client: OpenAI) -> None:
    done = client.responses.create(model="demo", input="hi", metadata={"k": "v"}, instructions="be nice")
    again = client.responses.retrieve(done.id)
    assert again.model_dump() == done.model_dump()
    assert again.instructions == "be nice" and again.metadata == {"k": "v"}


def test_stream_helper_accumulates_exactly_the_stored_response(client: OpenAI) -> None:
    with client.responses.stream(model="demo", input="weather in Oslo") as stream:
        events = list(stream)
        final = stream.get_final_response()
    types = [e.type for e in events]
    assert types[:2] == ["response.created", "response.in_progress"] and types[-1] == "response.completed"
    numbers = [e.sequence_number for e in events]
    assert numbers == list(range(len(events)))
    assert "response.mcp_call.completed" in types and "response.output_text.delta" in types
    assert "response.reasoning_summary_text.delta" in types
    assert final.output_text == "It is sunny and 21 °C in Oslo."
    assert _plain(client.responses.retrieve(final.id).model_dump()) == _plain(final.model_dump())


STREAM_EVENT: TypeAdapter[ResponseStreamEvent] = TypeAdapter(ResponseStreamEvent)


def test_the_turn_with_every_new_event_streams_typed_events_the_sdk_knows(client: OpenAI) -> None:
    """``sources for`` on the Python SDK: every event validates as one of its stream events (the
    SDK builds them without validating); the call's argument pieces join to its arguments and the
    sources are the message's annotations."""
    raw = list(client.responses.create(model="demo", input="sources for tides", stream=True))
    for event in raw:
        STREAM_EVENT.validate_python(event.model_dump(mode="json", exclude_unset=True))
    with client.responses.stream(model="demo", input="sources for tides") as stream:
        events = list(stream)
        final = stream.get_final_response()
    pieces = [e.delta for e in events if e.type == "response.mcp_call_arguments.delta"]
    call = next(item for item in final.output if item.type == "mcp_call")
    assert len(pieces) >= 2 and "".join(pieces) == call.arguments
    (message,) = [item for item in final.output if item.type == "message"]
    annotations = message.content[0].annotations  # type: ignore[union-attr]
    assert [a.type for a in annotations] == ["url_citation", "file_citation"]
    assert final.output_text == "Here are 2 sources for tides."


def test_streamed_deltas_build_the_text(client: OpenAI) -> None:
    stream = client.responses.create(model="demo", input="count to 3", stream=True)
    events = list(stream)
    deltas = "".join(e.delta for e in events if e.type == "response.output_text.delta")
    assert deltas == "123"
    done = [e for e in events if e.type == "response.output_item.done" and e.item.type == "message"]
    assert [e.item.content[0].text for e in done] == ["1", "2", "3"]
    added = [e.output_index for e in events if e.type == "response.output_item.added"]
    assert added == sorted(added) and len(set(added)) == len(added)


def test_previous_response_id_continues_over_three_turns(client: OpenAI) -> None:
    first = client.responses.create(model="demo", input="one")
    second = client.responses.create(model="demo", input="two", previous_response_id=first.id)
    third = client.responses.create(model="demo", input="three", previous_response_id=second.id)
    assert third.previous_response_id == second.id and third.output_text == "You said: three"
    # One session: the three turns share it (the demo numbers its messages by user turns).
    assert first.id[37:] == second.id[37:] == third.id[37:]
    items = client.responses.input_items.list(third.id, order="asc")
    assert [i.content[0].text for i in items.data] == ["three"]


def test_item_references_to_the_continued_conversation_are_taken(client: OpenAI) -> None:
    first = client.responses.create(model="demo", input="one")
    (answer,) = [item for item in first.output if item.type == "message"]
    asked = client.responses.input_items.list(first.id).data[0]
    second = client.responses.create(
        model="demo",
        previous_response_id=first.id,
        input=[
            {"type": "item_reference", "id": answer.id},
            {"type": "item_reference", "id": asked.id},
            {"role": "user", "content": "two"},
        ],
    )
    assert second.output_text == "You said: two"
    # What they name is already in the conversation: nothing of it is added twice.
    items = client.responses.input_items.list(second.id, order="asc")
    assert [i.type for i in items.data] == ["message"] and items.data[0].content[0].text == "two"


def test_an_item_reference_to_anything_else_is_404_naming_the_item(client: OpenAI) -> None:
    first = client.responses.create(model="demo", input="one")
    other = client.responses.create(model="demo", input="elsewhere")
    (foreign,) = [item for item in other.output if item.type == "message"]
    for kwargs in ({"previous_response_id": first.id}, {}):
        with pytest.raises(openai.NotFoundError) as caught:
            client.responses.create(
                model="demo",
                input=[{"role": "user", "content": "two"}, {"type": "item_reference", "id": foreign.id}],
                **kwargs,
            )
        assert caught.value.body["param"] == "input[1].id", caught.value.body
        assert foreign.id in caught.value.body["message"]
    # Nothing ran: the conversation still holds only the first turn.
    items = client.conversations.items.list(first.id[37:], order="asc").data
    assert [i.content[0].text for i in items if i.type == "message"] == ["one", "You said: one"]


def test_continuing_from_an_older_response_starts_a_branch_there(client: OpenAI) -> None:
    first = client.responses.create(model="demo", input="one")
    second = client.responses.create(model="demo", input="two", previous_response_id=first.id)
    third = client.responses.create(model="demo", input="three", previous_response_id=second.id)
    branch = client.responses.create(model="demo", input="again", previous_response_id=first.id)
    assert branch.output_text == "You said: again" and branch.id[37:] == first.id[37:]
    session = first.id[37:]
    http = client._client  # the SDK's own httpx client: the same server, key and base URL
    base = str(client.base_url).removesuffix("/v1/")
    task = http.get(f"{base}/tasks/name/{session}").json()["id"]
    branches = http.get(f"{base}/tasks/{task}/branches").json()["branches"]
    assert len(branches) == 2 and sum(b["latest"] for b in branches) == 1

    def said(branch: str | None = None) -> list[object]:
        params = {"format": "agenta", **({"branch": branch} if branch else {})}
        read = http.get(f"{base}/tasks/{task}/messages", params=params).json()["messages"]
        return [m["content"] for m in read if m["role"] == "user"]

    # The conversation reads the latest branch: the first turn, then the branch's turn.
    assert said() == ["one", "again"]
    # Every response stays readable, and the older branch still holds the second and third turns.
    assert client.responses.retrieve(third.id).output_text == "You said: three"
    older = next(b for b in branches if not b["latest"])
    assert said(older["leaf_id"]) == ["one", "two", "three"]
    # And continuing the branch continues it, not the older line.
    after = client.responses.create(model="demo", input="four", previous_response_id=branch.id)
    assert said() == ["one", "again", "four"]
    assert after.previous_response_id == branch.id


def test_approval_round_trip_runs_the_tool_once(client: OpenAI) -> None:
    paused = client.responses.create(model="demo", input="delete notes.txt")
    assert paused.status == "completed"
    (asked,) = [item for item in paused.output if item.type == "mcp_approval_request"]
    assert asked.name == "delete_file" and json.loads(asked.arguments) == {"path": "notes.txt"}
    assert asked.id.startswith("ap_") and asked.server_label == "demo"
    answer = [{"type": "mcp_approval_response", "approval_request_id": asked.id, "approve": True}]
    done = client.responses.create(model="demo", input=answer, previous_response_id=paused.id)  # type: ignore[arg-type]
    assert done.output_text == "Deleted notes.txt."
    (ran,) = [item for item in done.output if item.type == "mcp_call"]
    assert json.loads(ran.output or "") == {"path": "notes.txt", "deleted": True}
    assert ran.approval_request_id == asked.id
    # The same answer again (a replay, or the opposite answer) never runs the tool a second time.
    for approve in (True, False):
        again = [{"type": "mcp_approval_response", "approval_request_id": asked.id, "approve": approve}]
        with pytest.raises(openai.APIStatusError) as err:
            client.responses.create(model="demo", input=again, previous_response_id=done.id)  # type: ignore[arg-type]
        assert err.value.status_code == 409
        assert err.value.body["code"] == "approval_already_answered"
        assert err.value.body["param"] == "input[0].approval_request_id"


def test_denied_approval_does_not_run_the_tool(client: OpenAI) -> None:
    paused = client.responses.create(model="demo", input="delete keep.txt")
    (asked,) = [item for item in paused.output if item.type == "mcp_approval_request"]
    answer = [
        {"type": "mcp_approval_response", "approval_request_id": asked.id, "approve": False, "reason": "no"}
    ]
    done = client.responses.create(model="demo", input=answer, previous_response_id=paused.id)  # type: ignore[arg-type]
    assert done.output_text == "I did not delete keep.txt."


def test_forged_approval_token_is_refused(client: OpenAI) -> None:
    paused = client.responses.create(model="demo", input="delete a.txt")
    forged = [{"type": "mcp_approval_response", "approval_request_id": "ap_forged", "approve": True}]
    with pytest.raises(openai.ConflictError) as err:
        client.responses.create(model="demo", input=forged, previous_response_id=paused.id)  # type: ignore[arg-type]
    assert err.value.body["param"] == "input[0].approval_request_id"


def test_foreign_approval_token_is_refused(client: OpenAI) -> None:
    other = client.responses.create(model="demo", input="delete b.txt")
    (asked,) = [item for item in other.output if item.type == "mcp_approval_request"]
    mine = client.responses.create(model="demo", input="delete b.txt")
    answer = [{"type": "mcp_approval_response", "approval_request_id": asked.id, "approve": True}]
    with pytest.raises(openai.ConflictError):
        client.responses.create(model="demo", input=answer, previous_response_id=mine.id)  # type: ignore[arg-type]


def test_client_function_tool_round_trip(client: OpenAI) -> None:
    tools = [{"type": "function", "name": "pick_color", "parameters": {"type": "object", "properties": {}}}]
    asked = client.responses.create(model="picker", input="pick one", tools=tools)  # type: ignore[arg-type]
    (call,) = [item for item in asked.output if item.type == "function_call"]
    assert call.name == "pick_color" and call.call_id == "pick_1"
    assert json.loads(call.arguments) == {"options": ["red", "blue"]}
    answer = [{"type": "function_call_output", "call_id": call.call_id, "output": "red"}]
    done = client.responses.create(model="picker", input=answer, previous_response_id=asked.id, tools=tools)  # type: ignore[arg-type]
    assert done.output_text == "You picked red."


def test_store_false_keeps_nothing(client: OpenAI) -> None:
    done = client.responses.create(model="demo", input="hi", store=False)
    assert done.output_text == "You said: hi" and done.store is False
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(done.id)


def test_delete_forgets_the_response(client: OpenAI) -> None:
    done = client.responses.create(model="demo", input="hi")
    client.responses.delete(done.id)
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve(done.id)


def test_a_failed_turn_is_status_failed_with_error(client: OpenAI) -> None:
    done = client.responses.create(model="broken", input="hi")
    assert done.status == "failed" and done.error is not None
    assert "broken agent" in done.error.message


def test_failed_stream_ends_with_response_failed(client: OpenAI) -> None:
    events = list(client.responses.create(model="broken", input="hi", stream=True))
    assert events[-1].type == "response.failed" and events[-1].response.error is not None


def test_unknown_model_is_404_model_not_found(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as err:
        client.responses.create(model="nobody", input="hi")
    assert err.value.body["code"] == "model_not_found"


def test_unknown_response_is_404(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError):
        client.responses.retrieve("resp_nothing")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"model": "demo", "input": 3}, "input"),
        ({"model": "demo", "input": "x", "stream": "yes"}, "stream"),
        ({"model": "demo", "input": [{"type": "function_call_output"}]}, "input[0].call_id"),
        ({"model": 5, "input": "x"}, "model"),
        ({"model": "demo", "input": "x", "metadata": []}, "metadata"),
        ({"model": "demo", "input": "x", "store": False, "previous_response_id": "resp_x"}, "store"),
        (
            {"model": "demo", "input": "x", "conversation": "c", "previous_response_id": "resp_x"},
            "conversation",
        ),
        ({"model": "demo", "input": "x", "conversation": "has space"}, "conversation"),
    ],
)
def test_wrong_types_are_400_naming_the_field(wires_url: str, body: dict, param: str) -> None:
    answer = httpx.post(f"{wires_url}/v1/responses", json=body, timeout=10)
    assert answer.status_code == 400
    error = answer.json()["error"]
    assert error["param"] == param and error["type"] == "invalid_request_error"
    assert set(error) == {"message", "type", "param", "code"}


def test_unknown_fields_never_fail(client: OpenAI) -> None:
    done = client.responses.create(model="demo", input="hi", extra_body={"frobnicate": {"x": 1}})
    assert done.status == "completed"


def test_cancel_stops_a_running_response_and_keeps_it_cancelled(client: OpenAI) -> None:
    stream = client.responses.create(model="demo", input="count to 200", stream=True)
    events = iter(stream)
    created = next(events)
    assert created.type == "response.created"
    next(e for e in events if e.type == "response.output_text.delta")
    cancelled = client.responses.cancel(created.response.id)
    assert cancelled.status == "cancelled"
    rest = list(events)
    assert rest[-1].type == "response.incomplete" and rest[-1].response.status == "cancelled"
    said = [e for e in rest if e.type == "response.output_text.delta"]
    assert len(said) < 199  # stopped well before the end
    assert client.responses.retrieve(created.response.id).model_dump() == cancelled.model_dump()


def test_a_stored_conversation_reads_back_as_input_items(client: OpenAI, wires_url: str) -> None:
    done = client.responses.create(model="demo", input="weather in Lima")
    raw = client.responses.with_raw_response.retrieve(done.id)
    task = httpx.get(f"{wires_url}/tasks/name/{done.id[37:]}", timeout=10).json()["id"]
    assert raw.http_response.status_code == 200
    items = httpx.get(f"{wires_url}/tasks/{task}/messages", params={"format": "responses"}, timeout=10).json()
    kinds = [item["type"] for item in items["messages"]]
    assert kinds == ["message", "reasoning", "function_call", "function_call_output", "message"]
    assert items["messages"][0]["content"] == [{"type": "input_text", "text": "weather in Lima"}]
    assert items["messages"][-1]["content"][0]["text"] == "It is sunny and 21 °C in Lima."


def test_a_running_response_stream_resumes_after_a_sequence_number(client: OpenAI) -> None:
    stream = client.responses.create(model="demo", input="count to 20", stream=True)
    events = iter(stream)
    first = [next(events) for _ in range(6)]
    rid = first[0].response.id  # type: ignore[union-attr]
    resumed = list(client.responses.retrieve(rid, stream=True, starting_after=3))
    rest = first + list(events)
    assert [e.model_dump() for e in resumed] == [e.model_dump() for e in rest[4:]]
    assert resumed[-1].type == "response.completed"
    # Over: the stream again is its terminal event, whole.
    (again,) = list(client.responses.retrieve(rid, stream=True))
    assert again.type == "response.completed" and again.sequence_number == rest[-1].sequence_number
    assert again.response.model_dump() == rest[-1].response.model_dump()  # type: ignore[union-attr]
    assert list(client.responses.retrieve(rid, stream=True, starting_after=again.sequence_number)) == []


def test_a_client_that_leaves_cancels_its_response_which_stays_stored(client: OpenAI, wires_url: str) -> None:
    body = {"model": "demo", "input": "count to 200", "stream": True}
    headers = {"x-ag-on-disconnect": "cancel"}
    with httpx.stream("POST", f"{wires_url}/v1/responses", json=body, headers=headers, timeout=20) as answer:
        lines = answer.iter_lines()
        created = json.loads(next(line for line in lines if line.startswith("data: "))[6:])
        next(line for line in lines if "response.output_text.delta" in line)
    rid = created["response"]["id"]
    deadline = time.monotonic() + 10
    while True:
        try:
            stored = client.responses.retrieve(rid)
            break
        except openai.NotFoundError:
            assert time.monotonic() < deadline, "the cancelled response was never stored"
            time.sleep(0.1)
    assert stored.status == "cancelled"
    assert 0 < len([i for i in stored.output if i.type == "message"]) < 200
