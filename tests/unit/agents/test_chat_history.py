"""The canonical history as Chat Completions messages, whatever shape a format stored the turn in."""

from __future__ import annotations

from turnwire.agents.chat_history import DENIED_TEXT, NO_RESULT_TEXT, to_chat_messages
from turnwire.model import ImageBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock


def user(text: str) -> Message:
    return Message(role="user", content=[TextBlock(text)])


def call(call_id: str, city: str = "Paris") -> ToolCallBlock:
    return ToolCallBlock(id=call_id, name="get_weather", input={"city": city})


def result(call_id: str, output: object = "Sunny") -> ToolResultBlock:
    return ToolResultBlock(id=call_id, name="get_weather", output=output)


def decision(call_id: str, approved: bool) -> ToolResultBlock:
    return ToolResultBlock(id=call_id, output={"approved": approved, "interactionToken": "ap_x"})


def tool_calls(*ids: str) -> list[dict]:
    return [
        {"id": i, "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}
        for i in ids
    ]


def test_flat_tool_messages_and_one_message_parts_give_the_same_steps() -> None:
    flat = [  # Agenta batch: calls and results as their own messages
        user("weather twice"),
        Message(role="tool", content=[call("c1")]),
        Message(role="tool", content=[call("c2")]),
        Message(role="tool", content=[result("c1")]),
        Message(role="tool", content=[result("c2", {"rain": True})]),
        Message(role="assistant", content=[TextBlock("Sunny, then rain.")]),
    ]
    parts = [  # Vercel: one assistant message, its parts in order
        user("weather twice"),
        Message(
            role="assistant",
            content=[
                call("c1"),
                result("c1"),
                call("c2"),
                result("c2", {"rain": True}),
                TextBlock("Sunny, then rain."),
            ],
        ),
    ]
    expected = [
        {"role": "user", "content": "weather twice"},
        {"role": "assistant", "content": None, "tool_calls": tool_calls("c1", "c2")},
        {"role": "tool", "tool_call_id": "c1", "content": "Sunny"},
        {"role": "tool", "tool_call_id": "c2", "content": '{"rain":true}'},
        {"role": "assistant", "content": "Sunny, then rain."},
    ]
    for history in (flat, parts):
        chat = to_chat_messages(history)
        assert chat.messages == expected and chat.open_calls == []


def test_text_after_a_call_starts_the_next_step() -> None:
    history = [
        user("hi"),
        Message(
            role="assistant",
            content=[TextBlock("Let me look."), call("c1"), result("c1"), TextBlock("Sunny.")],
        ),
    ]
    assert to_chat_messages(history, system="Be brief.").messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Let me look.", "tool_calls": tool_calls("c1")},
        {"role": "tool", "tool_call_id": "c1", "content": "Sunny"},
        {"role": "assistant", "content": "Sunny."},
    ]


def test_the_last_steps_calls_without_a_result_stay_open_decided_or_not() -> None:
    history = [
        user("go"),
        Message(
            role="assistant",
            content=[call("c1"), result("c1"), call("c2"), decision("c2", False), call("c3")],
        ),
    ]
    chat = to_chat_messages(history)
    assert [c.id for c in chat.open_calls] == ["c2", "c3"]
    assert chat.messages[-1] == {"role": "tool", "tool_call_id": "c1", "content": "Sunny"}


def test_older_unanswered_calls_are_closed_for_the_model() -> None:
    history = [
        user("go"),
        Message(role="assistant", content=[call("c1"), decision("c1", False), call("c2")]),
        user("never mind"),
    ]
    messages = to_chat_messages(history).messages
    assert messages[2:4] == [
        {"role": "tool", "tool_call_id": "c1", "content": DENIED_TEXT},
        {"role": "tool", "tool_call_id": "c2", "content": NO_RESULT_TEXT},
    ]
    assert messages[-1] == {"role": "user", "content": "never mind"}


def test_a_call_replayed_twice_is_sent_once() -> None:
    history = [user("go"), Message(role="assistant", content=[call("c1"), call("c1"), result("c1")])]
    assert to_chat_messages(history).messages[1]["tool_calls"] == tool_calls("c1")


def test_images_become_content_parts() -> None:
    message = Message(
        role="user", content=[TextBlock("what is this?"), ImageBlock(data="AAAA", mime_type="image/jpeg")]
    )
    assert to_chat_messages([message]).messages == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
            ],
        }
    ]
