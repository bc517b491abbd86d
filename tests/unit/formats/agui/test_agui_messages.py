"""AG-UI messages ⇄ canonical: the mapping tables, errors naming the field, ``RunAgentInput`` with
``resume[]`` answers, and round trips both ways (validated with the real ``ag-ui-protocol`` models)."""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agui_checks import validate_message
from turnwire.convert import convert
from turnwire.errors import InputError
from turnwire.formats import get_format
from turnwire.formats.agui import parse_messages, parse_resume, parse_run_input, render_messages
from turnwire.formats.agui.interrupts import interrupt_id
from turnwire.model import (
    UNSET,
    AttachmentBlock,
    DataBlock,
    ImageBlock,
    InteractionRequest,
    Message,
    ReasoningBlock,
    ResourceBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from turnwire.runtime.transcript import decisions

CONVERSATION: list[dict[str, Any]] = [
    {"id": "s", "role": "system", "content": "Be brief."},
    {"id": "d", "role": "developer", "content": "Use tools."},
    {"id": "u", "role": "user", "content": "weather in Paris"},
    {"id": "r", "role": "reasoning", "content": "I will call get_weather."},
    {
        "id": "a",
        "role": "assistant",
        "content": "Looking.",
        "toolCalls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    },
    {"id": "t", "role": "tool", "toolCallId": "c1", "content": "Sunny"},
    {"id": "t2", "role": "tool", "toolCallId": "c1", "content": "quota", "error": "quota"},
    {"id": "act", "role": "activity", "activityType": "plan", "content": {"steps": [1, 2]}},
    {"id": "a2", "role": "assistant", "content": "It is sunny."},
]


def test_conversation_maps_to_canonical_blocks() -> None:
    msgs = parse_messages(CONVERSATION)
    assert [m.role for m in msgs] == [
        "system", "developer", "user", "assistant", "assistant", "tool", "tool", "assistant", "assistant",
    ]  # fmt: skip
    assert msgs[3].content == [ReasoningBlock("I will call get_weather.")]
    assert msgs[4].content == [TextBlock("Looking."), ToolCallBlock("c1", "get_weather", {"city": "Paris"})]
    assert msgs[5].content == [ToolResultBlock("c1", output="Sunny")]
    assert msgs[6].content == [ToolResultBlock("c1", output="quota", is_error=True)]
    assert msgs[7].content == [DataBlock({"steps": [1, 2]}, "plan")]
    assert msgs[4].id == "a"


def test_conversation_round_trips_exactly_and_every_message_validates() -> None:
    out = render_messages(parse_messages(CONVERSATION))
    assert out == CONVERSATION
    for message in out:
        validate_message(message)


def test_user_media_parts_map_to_image_resource_and_attachment_blocks() -> None:
    content = [
        {"type": "text", "text": "see"},
        {"type": "image", "source": {"type": "url", "value": "https://x/a.png", "mimeType": "image/png"}},
        {"type": "document", "source": {"type": "data", "value": "QUJD", "mimeType": "application/pdf"}},
        {"type": "image", "source": {"type": "file", "value": "file-1", "mimeType": "image/jpeg"}},
        {"type": "binary", "mimeType": "image/png", "data": "AAA"},
        {"type": "mystery", "x": 1},
    ]
    (msg,) = parse_messages([{"id": "u", "role": "user", "content": content}])
    assert msg.content[1:5] == [
        ImageBlock(uri="https://x/a.png", mime_type="image/png"),
        ResourceBlock(data="QUJD", mime_type="application/pdf"),
        AttachmentBlock("file-1", mime_type="image/jpeg"),
        ImageBlock(data="AAA", mime_type="image/png"),
    ]
    rendered = render_messages([msg])[0]
    validate_message(rendered)
    assert rendered["content"][:4] == content[:4]


def test_arguments_that_are_not_json_are_kept_as_text_and_sent_back_unchanged() -> None:
    raw = [
        {
            "id": "a",
            "role": "assistant",
            "toolCalls": [{"id": "c", "type": "function", "function": {"name": "f", "arguments": "{oops"}}],
        }
    ]
    assert parse_messages(raw)[0].content == [ToolCallBlock("c", "f", "{oops")]
    assert render_messages(parse_messages(raw)) == raw


@pytest.mark.parametrize(
    ("raw", "loc"),
    [
        ("nope", ("messages",)),
        (["x"], ("messages", 0)),
        ([{"id": "a"}], ("messages", 0, "role")),
        ([{"id": "t", "role": "tool", "content": "x"}], ("messages", 0, "toolCallId")),
        (
            [{"id": "a", "role": "assistant", "toolCalls": [{"function": {"name": "f"}}]}],
            ("messages", 0, "toolCalls", 0, "id"),
        ),
        (
            [{"id": "a", "role": "assistant", "toolCalls": [{"id": "c", "function": {}}]}],
            ("messages", 0, "toolCalls", 0, "function", "name"),
        ),
        ([{"id": "u", "role": "user", "content": 3}], ("messages", 0, "content")),
    ],
)
def test_bad_messages_name_the_field(raw: Any, loc: tuple) -> None:
    with pytest.raises(InputError) as info:
        parse_messages(raw)
    assert info.value.loc == loc


def test_fold_shaped_history_renders_calls_with_the_text_before_them() -> None:
    msgs = [
        Message("user", [TextBlock("hi")], id="u"),
        Message("assistant", [TextBlock("Let me check.")], id="m1"),
        Message("tool", [ToolCallBlock("c1", "f", {"a": 1})], id="m2"),
        Message("tool", [ToolResultBlock("c1", "f", {"ok": True})], id="m3"),
        Message("assistant", [TextBlock("Done.")], id="m4"),
    ]
    out = render_messages(msgs)
    assert out[1]["toolCalls"][0]["id"] == "c1" and out[1]["content"] == "Let me check."
    assert out[2] == {"id": "m3", "role": "tool", "toolCallId": "c1", "content": '{"ok":true}'}
    assert parse_messages(out)[2].content == [ToolResultBlock("c1", output={"ok": True})]
    for message in out:
        validate_message(message)


def test_convert_knows_agui() -> None:
    assert "agui" in [get_format("agui").name]
    out = convert(
        [{"role": "user", "content": [{"type": "text", "text": "hi"}]}], source="agenta", target="agui"
    )
    assert out == [{"id": "msg-1", "role": "user", "content": "hi"}]
    back = convert(out, source="agui", target="agenta")
    assert back[0]["role"] == "user"


# --------------------------------------------------------------------------- resume and RunAgentInput


def approval_interrupt() -> str:
    payload = {"toolCallId": "call_1", "toolName": "delete_file"}
    return interrupt_id(InteractionRequest("ap_tok", "user_approval", payload), "call_1")


def test_resolved_approval_becomes_a_signed_decision_for_its_call() -> None:
    (msg,) = parse_resume(
        [{"interruptId": approval_interrupt(), "status": "resolved", "payload": {"approved": True}}]
    )
    assert msg.role == "tool"
    assert msg.content == [ToolResultBlock("call_1", output={"approved": True, "interactionToken": "ap_tok"})]
    history = [Message("assistant", [ToolCallBlock("call_1", "delete_file", {"path": "a"})]), msg]
    decision = decisions(history)["call_1"]
    assert (
        decision.approved and decision.interaction_token == "ap_tok" and decision.tool_name == "delete_file"
    )


def test_cancelled_approval_is_a_denial() -> None:
    (msg,) = parse_resume([{"interruptId": approval_interrupt(), "status": "cancelled"}])
    assert msg.content[0].output["approved"] is False  # type: ignore[union-attr]


def test_user_input_answer_becomes_the_next_user_message() -> None:
    iid = interrupt_id(InteractionRequest("input_1", "user_input", {"prompt": "?"}))
    (msg,) = parse_resume([{"interruptId": iid, "status": "resolved", "payload": {"text": "hello"}}])
    assert msg.role == "user" and msg.content == [TextBlock("hello")]
    (plain,) = parse_resume([{"interruptId": iid, "status": "resolved", "payload": "hi"}])
    assert plain.content == [TextBlock("hi")]


@pytest.mark.parametrize(
    ("entry", "loc"),
    [
        ({"status": "resolved"}, ("resume", 0, "interruptId")),
        ({"interruptId": "x/y/z", "status": "maybe"}, ("resume", 0, "status")),
        ({"interruptId": "made-up", "status": "resolved"}, ("resume", 0, "interruptId")),
        (
            {"interruptId": "user_approval/c/t", "status": "resolved", "payload": {"approved": "yes"}},
            ("resume", 0, "payload", "approved"),
        ),
        (
            {
                "interruptId": "user_approval/c/t",
                "status": "resolved",
                "payload": {"approved": True, "editedArgs": {}},
            },
            ("resume", 0, "payload", "editedArgs"),
        ),
    ],
)
def test_bad_resume_entries_name_the_field(entry: dict, loc: tuple) -> None:
    with pytest.raises(InputError) as info:
        parse_resume([entry])
    assert info.value.loc == loc


def test_run_input_reads_thread_run_messages_resume_and_tools() -> None:
    body = {
        "threadId": "th",
        "runId": "r2",
        "parentRunId": "r1",
        "state": {"k": 1},
        "messages": [{"id": "u", "role": "user", "content": "delete a"}],
        "tools": [{"name": "pick_color", "description": "d", "parameters": {}}],
        "context": [],
        "forwardedProps": {"x": 1},
        "resume": [
            {"interruptId": approval_interrupt(), "status": "resolved", "payload": {"approved": False}}
        ],
    }
    run = parse_run_input(body)
    assert (run.thread_id, run.run_id, run.parent_run_id) == ("th", "r2", "r1")
    assert [m.role for m in run.messages] == ["user", "tool"]
    assert run.tool_names == ["pick_color"] and run.resumed and run.state == {"k": 1}


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"runId": "r", "messages": []}, ("threadId",)),
        ({"threadId": "t", "messages": []}, ("runId",)),
        ({"threadId": "t", "runId": "r", "messages": [], "tools": "x"}, ("tools",)),
        ({"threadId": "t", "runId": "r", "messages": [], "resume": {}}, ("resume",)),
    ],
)
def test_bad_run_input_names_the_field(body: dict, loc: tuple) -> None:
    with pytest.raises(InputError) as info:
        parse_run_input(body)
    assert info.value.loc == loc


# --------------------------------------------------------------------------- round-trip properties

IDS = st.text(st.characters(whitelist_categories=("Ll", "Nd")), min_size=1, max_size=6)
TEXT = st.text(max_size=12)
INT = st.integers(-(2**40), 2**40)
# Tool outputs that read back as themselves: text that does not look like JSON, or JSON objects.
OUTPUT = st.text(max_size=8).filter(lambda s: s[:1] not in ("{", "[")) | st.dictionaries(IDS, INT, min_size=1)
ARGS = st.dictionaries(IDS, INT | TEXT, max_size=3)

AGUI_MESSAGE = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "system", "developer"]), "content": TEXT}),
    st.fixed_dictionaries({"role": st.just("reasoning"), "content": TEXT}),
    st.fixed_dictionaries(
        {"role": st.just("activity"), "activityType": IDS, "content": st.dictionaries(IDS, INT, max_size=2)}
    ),
    st.fixed_dictionaries(
        {"role": st.just("assistant")},
        optional={
            "content": TEXT,
            "toolCalls": st.lists(
                st.builds(
                    lambda i, n, a: {"id": i, "type": "function", "function": {"name": n, "arguments": a}},
                    IDS,
                    IDS,
                    ARGS.map(lambda d: orjson.dumps(d).decode()),
                ),
                min_size=1,
                max_size=2,
                unique_by=lambda c: c["id"],
            ),
        },
    ),
    st.builds(
        lambda c, out: {"role": "tool", "toolCallId": c, "content": out},
        IDS,
        OUTPUT.map(lambda o: o if isinstance(o, str) else orjson.dumps(o).decode()),
    ),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(AGUI_MESSAGE, max_size=8))
def test_agui_to_canonical_to_agui_is_the_identity(raw: list[dict[str, Any]]) -> None:
    messages = [{"id": f"m{i}", **m} for i, m in enumerate(raw)]
    out = render_messages(parse_messages(messages))
    # A tool message's JSON text may come back re-encoded; compare decoded outputs.
    assert [_norm(m) for m in out] == [_norm(m) for m in messages]
    for message in out:
        validate_message(message)


def _norm(message: dict[str, Any]) -> dict[str, Any]:
    if message["role"] == "tool" and message["content"][:1] == "{":
        return {**message, "content": orjson.loads(message["content"])}
    return message


CANONICAL_BLOCKS = st.one_of(
    TEXT.map(TextBlock),
    st.builds(ToolCallBlock, IDS, IDS, ARGS),
    st.builds(
        lambda i, o, e: ToolResultBlock(i, output=o, is_error=e or None),
        IDS,
        OUTPUT.filter(lambda o: o != ""),
        st.booleans(),
    ),
    TEXT.filter(bool).map(ReasoningBlock),
    st.builds(DataBlock, st.dictionaries(IDS, INT, max_size=2), IDS),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.builds(lambda t: Message("user", [TextBlock(t)]), TEXT),
            st.builds(
                lambda bs: Message("assistant", bs), st.lists(CANONICAL_BLOCKS, min_size=1, max_size=4)
            ),
        ),
        max_size=6,
    )
)
def test_canonical_to_agui_to_canonical_keeps_every_block_in_order(msgs: list[Message]) -> None:
    out = render_messages(msgs)
    for message in out:
        validate_message(message)
    back = parse_messages(out)
    assert _blocks(back) == _blocks(msgs)


def _blocks(msgs: list[Message]) -> list[Any]:
    """Blocks in order, by side (user / assistant), adjacent texts of one side merged."""
    out: list[Any] = []
    for m in msgs:
        side = "user" if m.role == "user" else "assistant"
        for b in m.content:
            if isinstance(b, ToolResultBlock):
                b = ToolResultBlock(b.id, None, b.output if b.output is not UNSET else "", b.is_error or None)
            if isinstance(b, TextBlock) and out and out[-1][0] == side and isinstance(out[-1][1], TextBlock):
                out[-1] = (side, TextBlock(out[-1][1].text + b.text))
            elif isinstance(b, TextBlock) and not b.text:
                continue
            else:
                out.append((side, b))
    return out


def test_a_stored_conversation_reads_back_without_the_conversation_note() -> None:
    """The note (message, turn, session) is turnwire's bookkeeping: an AG-UI client never saw it."""
    render = get_format("agui").render_conversation
    assert render is not None
    note = {"turnwire": {"message_id": "u1"}}
    stored = [
        Message("user", [TextBlock("hi")], id="u1", metadata=note),
        Message("assistant", [TextBlock("yo")], id="a1", metadata={**note, "kept": 1}),
    ]
    assert render(stored, {}) == [
        {"id": "u1", "role": "user", "content": "hi"},
        {"id": "a1", "role": "assistant", "content": "yo", "metadata": {"kept": 1}},
    ]


def test_a_stored_turn_reads_back_under_the_ids_its_run_named_its_messages_by() -> None:
    """Each stored content of a turn is one canonical message noted with the turn and its stored
    message id ``M``: they read back as the run's messages ``M``, ``M-2``…, a result where the
    client put it, a call in the assistant message of its own turn only; the client's ids kept."""
    render = get_format("agui").render_conversation
    assert render is not None

    def turn(role: str, block: Any, message_id: str = "msg-T") -> Message:
        return Message(
            role, [block], id=message_id, metadata={"turnwire": {"message_id": message_id, "turn": "T"}}
        )

    client = {"turnwire": {"message_id": "a0"}}
    stored = [
        Message("assistant", [TextBlock("earlier")], id="a0", metadata=client),
        turn("tool", ToolCallBlock("c1", "f", {})),  # not joined to the client's message
        turn("assistant", TextBlock("while it runs")),
        turn("tool", ToolResultBlock("c1", "r")),  # where TOOL_CALL_RESULT puts it
        turn("tool", ToolResultBlock("nope", "r")),  # for a call the client never held: dropped
        turn("assistant", ReasoningBlock("hm")),
        turn("assistant", DataBlock({"a": 1}, "card")),
    ]
    assert [(m["id"], m["role"]) for m in render(stored, {})] == [
        ("a0", "assistant"),
        ("msg-T", "assistant"),
        ("msg-T-3", "tool"),
        ("msg-T-2", "assistant"),
        ("msg-T-4", "reasoning"),
        ("msg-T-5", "activity"),
    ]


def test_resume_answers_read_back_as_the_client_holds_them() -> None:
    """A decision is no AG-UI message (the call's result is); a text answer is the user message
    the run sent in ``RUN_STARTED.input``; other answers are no message."""
    render = get_format("agui").render_conversation
    assert render is not None
    approval = interrupt_id(InteractionRequest("ap_1", "user_approval", {"toolCallId": "c1"}), "c1")
    question = interrupt_id(InteractionRequest("input_1", "user_input", {"prompt": "?"}))
    other = interrupt_id(InteractionRequest("x_1", "pick", {}))
    answers = parse_resume(
        [
            {"interruptId": approval, "status": "resolved", "payload": {"approved": True}},
            {"interruptId": question, "status": "resolved", "payload": {"text": "blue"}},
            {"interruptId": other, "status": "resolved", "payload": 1},
        ]
    )
    assert [m.id for m in answers] == [f"resume:{approval}", f"resume:{question}", f"resume:{other}"]
    stored = [Message("assistant", [ToolCallBlock("c1", "f", {})], id="a1"), *answers]
    assert render(stored, {})[1:] == [{"id": f"resume:{question}", "role": "user", "content": "blue"}]


def test_an_id_less_clients_answer_stored_as_contents_reads_back_as_one_message() -> None:
    """Contents without a note (a client that sent no ids) join as the message they were."""
    render = get_format("agui").render_conversation
    assert render is not None
    stored = [
        Message("assistant", [TextBlock("let me look")], id="r1"),
        Message("tool", [ToolCallBlock("c1", "f", {})], id="r2"),
    ]
    (message,) = render(stored, {})
    assert (message["id"], message["content"], [c["id"] for c in message["toolCalls"]]) == (
        "r1",
        "let me look",
        ["c1"],
    )
