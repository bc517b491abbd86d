"""The OpenAI-compatible door driven by the real ``openai`` Python client against a live server:
models, batch and streamed completions (text, reasoning, usage, the weather tool's output), the
approval pause and its answer, sessions by header, recording, and errors as ``APIStatusError``s."""

from __future__ import annotations

import json
import uuid

import httpx
import openai
import pytest
from openai import OpenAI

from turnwire.formats.openai import APPROVAL_TOOL


@pytest.fixture
def client(wires_url: str) -> OpenAI:
    return OpenAI(base_url=f"{wires_url}/v1", api_key="unused", max_retries=0, timeout=20)


def test_models_lists_the_served_agents(client: OpenAI) -> None:
    ids = [m.id for m in client.models.list()]
    assert "demo" in ids and "broken" in ids
    assert client.models.retrieve("demo").owned_by == "turnwire"


def test_batch_completion_has_text_reasoning_and_usage(client: OpenAI) -> None:
    done = client.chat.completions.create(model="demo", messages=[{"role": "user", "content": "hello there"}])
    message = done.choices[0].message
    assert message.content == "You said: hello there"
    assert message.model_extra["reasoning_content"] == "The user said: hello there."
    assert done.choices[0].finish_reason == "stop"
    assert done.usage is not None and done.usage.prompt_tokens == 2 and done.usage.completion_tokens == 4
    assert done.model == "demo" and done.id.startswith("chatcmpl-")


def test_batch_weather_shows_the_tool_output(client: OpenAI) -> None:
    raw = client.chat.completions.with_raw_response.create(
        model="demo", messages=[{"role": "user", "content": "weather in Paris"}]
    )
    done = raw.parse()
    message = done.choices[0].message
    assert message.content == "It is sunny and 21 °C in Paris."
    (executed,) = message.model_extra["executed_tool_calls"]
    assert executed["function"]["name"] == "get_weather"
    assert json.loads(executed["function"]["arguments"]) == {"city": "Paris"}
    # The one output rule (ToolResult.result_output): the tool's structured data when it has one.
    assert json.loads(executed["output"]) == {"city": "Paris", "condition": "Sunny", "temperature_c": 21}
    assert message.tool_calls is None  # the agent ran it: nothing for the client to run
    assert raw.headers["x-ag-task-id"]


def test_streamed_weather_with_usage(client: OpenAI) -> None:
    stream = client.chat.completions.create(
        model="demo",
        messages=[{"role": "user", "content": "weather in Oslo"}],
        stream=True,
        stream_options={"include_usage": True},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "It is sunny and 21 °C in Oslo."
    executed = [
        e
        for c in chunks
        if c.choices
        for e in (c.choices[0].delta.model_extra or {}).get("executed_tool_calls", [])
    ]
    assert [json.loads(e["output"]) for e in executed] == [
        {"city": "Oslo", "condition": "Sunny", "temperature_c": 21}
    ]
    finals = [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason]
    assert finals == ["stop"]
    assert chunks[-1].choices == [] and chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


def test_stream_without_include_usage_has_no_usage_chunk(client: OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="demo", messages=[{"role": "user", "content": "hi"}], stream=True
        )
    )
    assert all(c.usage is None for c in chunks) and chunks[-1].choices[0].finish_reason == "stop"


def test_approval_pause_and_answer_run_the_gated_tool(client: OpenAI) -> None:
    messages: list[dict] = [{"role": "user", "content": "delete notes.txt"}]
    paused = client.chat.completions.create(model="demo", messages=messages)  # type: ignore[arg-type]
    choice = paused.choices[0]
    assert choice.finish_reason == "tool_calls"
    (call,) = choice.message.tool_calls or []
    assert call.function.name == APPROVAL_TOOL
    asked = json.loads(call.function.arguments)
    assert asked["tool"] == "delete_file" and asked["arguments"] == {"path": "notes.txt"}
    messages += [
        choice.message.model_dump(exclude_none=True, exclude={"executed_tool_calls"}),
        {"role": "tool", "tool_call_id": call.id, "content": json.dumps({"approved": True})},
    ]
    done = client.chat.completions.create(model="demo", messages=messages)  # type: ignore[arg-type]
    assert done.choices[0].message.content == "Deleted notes.txt."
    (executed,) = done.choices[0].message.model_extra["executed_tool_calls"]
    assert json.loads(executed["output"]) == {"path": "notes.txt", "deleted": True}


def test_approval_with_altered_arguments_is_refused_409(client: OpenAI) -> None:
    paused = client.chat.completions.create(model="demo", messages=[{"role": "user", "content": "delete a"}])
    (call,) = paused.choices[0].message.tool_calls or []
    forged = json.loads(call.function.arguments)
    forged["arguments"] = {"path": "/etc"}
    assistant = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": APPROVAL_TOOL, "arguments": json.dumps(forged)},
            }
        ],
    }
    with pytest.raises(openai.ConflictError) as info:
        client.chat.completions.create(
            model="demo",
            messages=[
                {"role": "user", "content": "delete a"},
                assistant,  # type: ignore[list-item]
                {"role": "tool", "tool_call_id": call.id, "content": '{"approved": true}'},
            ],
        )
    assert info.value.status_code == 409
    assert info.value.body["code"] == "approval_token_invalid"  # type: ignore[index]


def test_streamed_approval_pause_finishes_tool_calls(client: OpenAI) -> None:
    chunks = list(
        client.chat.completions.create(
            model="demo", messages=[{"role": "user", "content": "delete b"}], stream=True
        )
    )
    calls = [t for c in chunks if c.choices for t in (c.choices[0].delta.tool_calls or [])]
    assert [(t.index, t.function.name) for t in calls] == [(0, APPROVAL_TOOL)]
    assert chunks[-1].choices[0].finish_reason == "tool_calls"


def test_a_session_header_keeps_the_conversation_and_it_is_recorded(client: OpenAI, wires_url: str) -> None:
    sid = f"oa-{uuid.uuid4().hex[:8]}"
    headers = {"x-ag-session-id": sid, "x-ag-history": "stored"}
    first = client.chat.completions.create(
        model="demo", messages=[{"role": "user", "content": "ask me"}], extra_headers=headers
    )
    assert first.choices[0].message.content == "What should I echo?"
    second = client.chat.completions.create(
        model="demo", messages=[{"role": "user", "content": "purple"}], extra_headers=headers
    )
    assert second.choices[0].message.content == "You answered: purple"
    history = httpx.get(f"{wires_url}/tasks/{sid}/messages", params={"format": "openai"}).json()["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[-1]["content"] == "You answered: purple"


def test_unknown_model_is_not_found(client: OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as info:
        client.chat.completions.create(model="nope", messages=[{"role": "user", "content": "x"}])
    assert info.value.body == {  # type: ignore[comparison-overlap]
        "message": "The model 'nope' does not exist (the served agents are listed at /v1/models)",
        "type": "invalid_request_error",
        "param": "model",
        "code": "model_not_found",
    }
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("nope")


def test_bad_messages_are_a_400_naming_the_field(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(model="demo", messages=[{"role": "tool", "content": "x"}])  # type: ignore[list-item]
    assert info.value.body["param"] == "messages[0].tool_call_id"  # type: ignore[index]


def test_body_over_the_limit_is_413(client: OpenAI) -> None:
    with pytest.raises(openai.APIStatusError) as info:
        client.chat.completions.create(model="demo", messages=[{"role": "user", "content": "x" * 70_000}])
    assert info.value.status_code == 413


def test_failed_agent_is_a_500_the_client_does_not_retry(wires_url: str) -> None:
    retrying = OpenAI(base_url=f"{wires_url}/v1", api_key="unused", max_retries=2, timeout=20)
    with pytest.raises(openai.InternalServerError) as info:
        retrying.chat.completions.create(model="broken", messages=[{"role": "user", "content": "x"}])
    assert info.value.body["code"] == "agent_run_failed"  # type: ignore[index]
    assert info.value.response.headers["x-should-retry"] == "false"


def test_failed_agent_while_streaming_raises_from_the_stream(client: OpenAI) -> None:
    stream = client.chat.completions.create(
        model="broken", messages=[{"role": "user", "content": "x"}], stream=True
    )
    with pytest.raises(openai.APIError):
        for _ in stream:
            pass


def test_a_client_tool_is_a_tool_call_the_next_request_answers(client: OpenAI) -> None:
    tools = [{"type": "function", "function": {"name": "pick_color", "parameters": {"type": "object"}}}]
    messages: list[dict] = [{"role": "user", "content": "pick one"}]
    asked = client.chat.completions.create(model="picker", messages=messages, tools=tools)  # type: ignore[arg-type]
    choice = asked.choices[0]
    assert choice.finish_reason == "tool_calls" and choice.message.content == "Pick a color."
    (call,) = choice.message.tool_calls or []
    assert call.id == "pick_1" and call.function.name == "pick_color"
    assert json.loads(call.function.arguments) == {"options": ["red", "blue"]}
    messages += [
        choice.message.model_dump(exclude_none=True),
        {"role": "tool", "tool_call_id": call.id, "content": "blue"},
    ]
    done = client.chat.completions.create(model="picker", messages=messages, tools=tools)  # type: ignore[arg-type]
    assert done.choices[0].message.content == "You picked blue."


def test_stateless_by_default_each_request_is_its_own_recorded_task(client: OpenAI, wires_url: str) -> None:
    tasks = []
    for _ in range(2):
        raw = client.chat.completions.with_raw_response.create(
            model="demo", messages=[{"role": "user", "content": "hi"}]
        )
        tasks.append(raw.headers["x-ag-task-id"])
    assert tasks[0] != tasks[1]
    stored = httpx.get(f"{wires_url}/tasks/{tasks[1]}/messages", params={"format": "openai"}).json()[
        "messages"
    ]
    assert stored == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "reasoning_content": "The user said: hi.", "content": "You said: hi"},
    ]


def test_metadata_session_id_keeps_one_conversation(client: OpenAI, wires_url: str) -> None:
    sid = f"meta-{uuid.uuid4().hex[:8]}"
    messages: list[dict] = [{"role": "user", "content": "hello"}]
    first = client.chat.completions.create(model="demo", messages=messages, metadata={"session_id": sid})  # type: ignore[arg-type]
    messages += [
        {"role": "assistant", "content": first.choices[0].message.content},
        {"role": "user", "content": "again"},
    ]
    client.chat.completions.create(model="demo", messages=messages, metadata={"session_id": sid})  # type: ignore[arg-type]
    stored = httpx.get(f"{wires_url}/tasks/{sid}/messages", params={"format": "openai"}).json()["messages"]
    assert [m["content"] for m in stored] == ["hello", "You said: hello", "again", "You said: again"]


def test_a_bad_session_id_is_a_400_naming_it(client: OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as info:
        client.chat.completions.create(
            model="demo",
            messages=[{"role": "user", "content": "x"}],
            extra_headers={"x-ag-session-id": "bad id!"},
        )
    assert info.value.body["param"] == "header.x-ag-session-id"  # type: ignore[index]


def test_the_sdks_stream_helper_assembles_a_resumed_approval(client: OpenAI) -> None:
    """``client.chat.completions.stream()`` accumulates every chunk: two executed calls included."""
    messages: list[dict] = [{"role": "user", "content": "delete a and b"}]
    paused = client.chat.completions.create(model="demo", messages=messages)  # type: ignore[arg-type]
    calls = paused.choices[0].message.tool_calls or []
    assert [c.function.name for c in calls] == [APPROVAL_TOOL, APPROVAL_TOOL]
    messages.append(paused.choices[0].message.model_dump(exclude_none=True))
    messages += [{"role": "tool", "tool_call_id": c.id, "content": '{"approved": true}'} for c in calls]
    with client.chat.completions.stream(model="demo", messages=messages) as stream:  # type: ignore[arg-type]
        final = stream.get_final_completion()
    message = final.choices[0].message
    assert message.content == "Deleted a. Deleted b."
    outputs = [json.loads(e["output"]) for e in message.model_extra["executed_tool_calls"]]
    assert outputs == [{"path": "a", "deleted": True}, {"path": "b", "deleted": True}]
