"""Properties of the Agenta format and fold over generated input."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from turnwire.errors import InputError
from turnwire.fold import fold
from turnwire.formats.agenta import (
    encode_events,
    frame_to_event,
    parse_messages,
    render_messages,
    render_outputs,
)
from turnwire.model import (
    EVENT_TYPES,
    UNSET,
    AgentEnd,
    AgentStart,
    AttachmentBlock,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
    FileEvent,
    ImageBlock,
    InteractionRequest,
    InteractionResponse,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ResourceBlock,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    TextBlock,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    ToolResultBlock,
    UnknownBlock,
    Usage,
)

SETTINGS = settings(max_examples=200, deadline=None)

# what can travel as JSON: no NaN/infinity, integers within 64 bits (orjson's range)
finite_floats = st.floats(allow_nan=False, allow_infinity=False)
json_ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
json_scalars = st.none() | st.booleans() | json_ints | finite_floats | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)

# --------------------------------------------------------------------------- parse never crashes

block_keys = st.sampled_from(
    [
        "type",
        "text",
        "data",
        "uri",
        "mimeType",
        "mime_type",
        "toolCallId",
        "tool_call_id",
        "toolName",
        "tool_name",
        "input",
        "output",
        "isError",
        "is_error",
        "attachmentId",
        "attachment_id",
        "filename",
        "size",
    ]
)
block_types = st.sampled_from(["text", "image", "resource", "attachment", "tool_call", "tool_result", "x"])
blockish = st.dictionaries(block_keys, json_values | block_types, max_size=5)
message_keys = st.sampled_from(
    ["role", "content", "display_content", "id", "tool_call_id", "tool_name", "input", "is_error"]
)
messageish = st.dictionaries(
    message_keys,
    json_values
    | st.sampled_from(["user", "tool", "assistant"])
    | st.lists(blockish | json_values, max_size=4),
    max_size=5,
)


@SETTINGS
@given(json_values | st.lists(messageish | json_values, max_size=5))
def test_parse_messages_raises_nothing_but_input_error_on_arbitrary_json(raw):
    try:
        parsed = parse_messages(raw)
    except InputError as exc:
        assert exc.loc and exc.loc[0] == "messages"
        return
    # whatever parses renders, and re-parsing the rendering is a fixed point
    assert parse_messages(render_messages(parsed)) == parsed
    orjson.dumps(render_messages(parsed))


# --------------------------------------------------------------------------- round trip

opt_text = st.none() | st.text(max_size=8)
opt_size = st.none() | st.integers(min_value=0, max_value=10**9)
non_null_json = json_values.filter(lambda v: v is not None)
known_types = {"text", "image", "resource", "attachment", "tool_call", "tool_result"}

representable_blocks = st.one_of(
    st.builds(TextBlock, st.text(max_size=10)),
    st.builds(ImageBlock, opt_text, opt_text, opt_text, opt_text, opt_size),
    st.builds(ResourceBlock, opt_text, opt_text, opt_text, opt_text, opt_size),
    st.builds(AttachmentBlock, st.text(max_size=8), opt_text, opt_text, opt_size),
    st.builds(ToolCallBlock, opt_text, opt_text, st.none() | non_null_json),
    st.builds(ToolResultBlock, opt_text, opt_text, st.just(UNSET) | json_values, st.none() | st.booleans()),
    st.builds(
        lambda kind, rest: UnknownBlock({**rest, "type": kind}),
        st.text(min_size=1, max_size=8).filter(lambda t: t not in known_types),
        st.dictionaries(st.text(max_size=6), json_values, max_size=3),
    ),
)
representable_messages = st.builds(
    Message,
    role=st.sampled_from(["user", "assistant", "system", "developer", "tool", "function"])
    | st.text(max_size=6),
    content=st.lists(representable_blocks, max_size=4),
    id=opt_text,
    display_content=st.just(UNSET) | opt_text,
)


@SETTINGS
@given(st.lists(representable_messages, max_size=4))
def test_parse_of_render_is_identity_for_agenta_representable_messages(messages):
    wire = render_messages(messages)
    assert parse_messages(orjson.loads(orjson.dumps(wire))) == messages


# --------------------------------------------------------------------------- fold and frames

ids = st.sampled_from(["a", "b", "c"])
small_ids = st.none() | ids
EVENT_STRATEGIES = {
    MessageEvent: st.builds(MessageEvent, st.text(max_size=5)),
    MessageStart: st.builds(MessageStart, ids),
    MessageDelta: st.builds(MessageDelta, ids, st.text(max_size=5)),
    MessageEnd: st.builds(MessageEnd, ids),
    Thought: st.builds(Thought, st.text(max_size=5)),
    ThoughtStart: st.builds(ThoughtStart, ids),
    ThoughtDelta: st.builds(ThoughtDelta, ids, st.text(max_size=5)),
    ThoughtEnd: st.builds(ThoughtEnd, ids),
    ToolCall: st.builds(ToolCall, small_ids, opt_text, json_values, json_values, json_values),
    ToolResult: st.builds(
        ToolResult,
        small_ids,
        st.just(UNSET) | json_values,
        json_values,
        st.none() | st.booleans(),
        st.none() | st.booleans(),
        json_values,
        opt_text,
    ),
    InteractionRequest: st.builds(
        InteractionRequest, ids, st.sampled_from(["user_approval", "user_input", "client_tool"]), json_values
    ),
    InteractionResponse: st.builds(InteractionResponse, ids, st.text(max_size=5), json_values),
    DataEvent: st.builds(DataEvent, opt_text, json_values, st.none() | st.booleans()),
    FileEvent: st.builds(FileEvent, st.text(max_size=8), st.sampled_from(["image/png", "text/csv", ""])),
    Usage: st.builds(Usage, opt_size, opt_size, opt_size, st.none() | finite_floats),
    ErrorEvent: st.builds(ErrorEvent, st.text(max_size=5), opt_text, json_values),
    Done: st.builds(Done, st.none() | st.sampled_from(["end_turn", "paused", "max_tokens"]), opt_text),
}
patch_ops = st.lists(
    st.fixed_dictionaries(
        {"op": st.sampled_from(["add", "replace", "remove"]), "path": st.sampled_from(["/a", "/b/0"])},
        optional={"value": json_values},
    ),
    max_size=3,
)
NEWER_EVENT_STRATEGIES = {
    SourceUrl: st.builds(SourceUrl, ids, st.text(min_size=1, max_size=8), opt_text),
    SourceDocument: st.builds(
        SourceDocument, ids, st.sampled_from(["application/pdf"]), st.text(max_size=5), opt_text
    ),
    ToolCallDelta: st.builds(ToolCallDelta, ids, st.text(max_size=5), opt_text),
    ToolProgress: st.builds(ToolProgress, ids, json_values),
    StateSnapshot: st.builds(StateSnapshot, json_values),
    StateDelta: st.builds(StateDelta, patch_ops),
    StepStart: st.builds(StepStart, ids),
    StepEnd: st.builds(StepEnd, ids),
    AgentStart: st.builds(AgentStart, ids, small_ids),
    AgentEnd: st.builds(AgentEnd, ids, small_ids),
    CustomEvent: st.builds(CustomEvent, st.sampled_from(["acme.progress", "turnwire.x"]), json_values),
}
EVENT_STRATEGIES.update(NEWER_EVENT_STRATEGIES)
events = st.one_of(*EVENT_STRATEGIES.values())
older_events = st.one_of(*(v for k, v in EVENT_STRATEGIES.items() if k not in NEWER_EVENT_STRATEGIES))
newer_events = st.one_of(*NEWER_EVENT_STRATEGIES.values())


def test_the_event_strategy_covers_every_event_class():
    assert set(EVENT_STRATEGIES) == set(EVENT_TYPES.values())


@SETTINGS
@given(st.lists(events, max_size=30), st.none() | st.sampled_from(["paused", "cancelled"]), st.booleans())
def test_fold_never_raises_and_its_batch_is_json(stream, stop_reason, full):
    turn = fold(stream, stop_reason=stop_reason, full=full)
    outputs = render_outputs(turn)
    orjson.dumps(outputs)
    assert ("pending_interaction" in outputs) <= (outputs.get("stop_reason") == "paused")
    assert render_outputs(fold(stream, stop_reason=stop_reason)) == outputs


@SETTINGS
@given(st.lists(events, max_size=30))
def test_events_survive_the_ndjson_frame_round_trip(stream):
    lines = [orjson.dumps(frame) for frame in encode_events(stream)]
    decoded = [frame_to_event(orjson.loads(line)) for line in lines]
    assert decoded == stream
    assert fold(decoded) == fold(stream)


@SETTINGS
@given(st.lists(st.tuples(older_events, st.lists(newer_events, max_size=2)), max_size=20), st.booleans())
def test_the_newer_events_leave_the_folded_turn_as_it_is_without_them(pairs, full):
    """No client keeps a streamed input piece, a progress, state, a step, a sub-agent frame or a
    custom event as a message, and neither does the batch (nor, built the same way, the store)."""
    plain = [older for older, _ in pairs]
    mixed = [e for older, newer in pairs for e in (older, *newer)]
    assert fold(mixed, full=full) == fold(plain, full=full)
