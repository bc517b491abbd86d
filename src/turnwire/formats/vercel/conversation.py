"""A stored conversation as the ``useChat`` page holds it after its turns, and a batch turn's
answer as that page would hold it: both rendered by ``_render``, so they never differ.

The store keeps one content per block; each carries (``Message.metadata[NOTE_KEY]``) the message
it is part of and the turn that wrote it. From those this module rebuilds what the client
assembled from the streams: one assistant UIMessage per answer under the stream's
``start.messageId`` (however many turns an approval split it into), the client's own message ids,
``step-start`` parts where each turn opened its steps (``with_steps``), ``data-render`` parts
after the calls and results that had a ``render`` (noted as ``render``), the parts of the turn's
interaction requests where the stream sent them (``interaction_parts``), and the stream's message
metadata (``sessionId``, then each turn's ``usage`` and ``traceId``, the last turn winning).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from turnwire.formats import NOTE_KEY, without_note
from turnwire.formats.vercel.answer import agent_error_block, answer_of, render_block
from turnwire.formats.vercel.interaction_chunks import interaction_parts
from turnwire.formats.vercel.outbound import render_messages, with_steps
from turnwire.formats.vercel.versions import ClientVersion
from turnwire.interactions import pending_approvals, render_pending
from turnwire.model import (
    Block,
    DataBlock,
    Event,
    InteractionRequest,
    Message,
    Role,
    ToolCallBlock,
    ToolResultBlock,
    Turn,
)

ANSWER_ROLES: Final = frozenset((Role.ASSISTANT, Role.TOOL))


@dataclass(slots=True)
class _Group:
    message: Message
    message_id: str | None
    turns: list[tuple[str | None, list[Block]]] = field(default_factory=list)
    metadata: dict[str, Any] = field(default_factory=dict)


def _side(msg: Message) -> str:
    if msg.role == Role.TOOL and all(isinstance(b, ToolCallBlock) for b in msg.content):
        return Role.ASSISTANT  # a call is the assistant's; only results speak as the tool
    return msg.role


def _with_render(blocks: list[Block], render: Any) -> list[Block]:
    """A stored call or result noted with a ``render``: its blocks, then the ``data-render`` part."""
    if render is None or not blocks:
        return blocks
    call = blocks[0]
    call_id = call.id if isinstance(call, ToolCallBlock | ToolResultBlock) else None
    return [*blocks, render_block(call_id, render)]


def _notices(noted: Any) -> tuple[list[Block], bool]:
    """The parts a client keeps of the requests and errors noted on a stored content, and whether
    an error is among them: the AI SDK client stops reading its stream at the error."""
    blocks: list[Block] = []
    for entry in noted if isinstance(noted, list) else ():
        if entry.get("type") == "error":
            blocks.append(
                agent_error_block(entry.get("message") or "", entry.get("code"), entry.get("detail"))
            )
            return blocks, True
        request = InteractionRequest(entry["id"], entry["kind"], entry.get("payload"))
        blocks.extend(interaction_parts(request))
    return blocks, False


def _errored(messages: Sequence[Message]) -> set[Any]:
    """The turns whose stream reported an error: their client never read their ``finish``."""
    out = set()
    for msg in messages:
        note = (msg.metadata or {}).get(NOTE_KEY) or {}
        for key in ("notices_before", "notices_after"):
            if any(n.get("type") == "error" for n in note.get(key) or ()):
                out.add(note.get("turn"))
    return out


def _groups(messages: Sequence[Message]) -> list[_Group]:
    """Consecutive answer messages join into one assistant message unless the store says they
    belong to different messages; a client's message stored as several contents is one again.
    A turn ends at its first error, as its client read it."""
    out: list[_Group] = []
    errored, stopped = _errored(messages), set()
    for msg in messages:
        note = (msg.metadata or {}).get(NOTE_KEY) or {}
        role, message_id, turn = _side(msg), note.get("message_id"), note.get("turn")
        if turn is not None and turn in stopped:
            continue
        content, cut = _notices(note.get("notices_before"))
        if not cut:
            after, cut = _notices(note.get("notices_after"))
            content += [*_with_render(list(msg.content), note.get("render")), *after]
        if cut:
            stopped.add(turn)
        last = out[-1] if out else None
        answer = (
            last is not None
            and role in ANSWER_ROLES
            and last.message.role in ANSWER_ROLES
            and (message_id is None or last.message_id in (None, message_id))
        )
        split_client_message = (
            last is not None
            and turn is None
            and message_id is not None
            and last.message_id == message_id
            and role == last.message.role
        )
        if last is not None and (answer or split_client_message):
            if role in ANSWER_ROLES:
                last.message.role = Role.ASSISTANT
            last.message.content.extend(content)
            last.message_id = last.message_id or message_id
        else:
            copy = Message(role, list(content), id=msg.id, metadata=without_note(msg.metadata))
            last = _Group(copy, message_id)
            out.append(last)
        last.turns.append((turn, content))
        if turn is not None:
            if note.get("session"):
                last.metadata.setdefault("sessionId", note["session"])
            if turn not in errored:  # the finish that carries them never reached the client
                if note.get("usage"):
                    last.metadata["usage"] = note["usage"]
                last.metadata["traceId"] = turn
    return out


def _with_turns(groups: list[_Group], calls: Collection[str] = ()) -> list[Message]:
    """Each group's message with the ``step-start`` parts its turns' streams sent (``calls``: the
    calls the conversation held before the first group)."""
    out: list[Message] = []
    known = set(calls)
    for group in groups:
        blocks: list[Block] = []
        i, turns = 0, group.turns
        while i < len(turns):
            turn = turns[i][0]
            run: list[Block] = []
            while i < len(turns) and turns[i][0] == turn:
                run.extend(turns[i][1])
                i += 1
            blocks.extend(with_steps(run, known) if turn is not None else run)
            known.update(b.id for b in run if isinstance(b, ToolCallBlock) and b.id)
        message = group.message
        message.content = blocks
        if group.metadata and message.role == Role.ASSISTANT:
            message.metadata = {**(message.metadata or {}), **group.metadata}
        out.append(message)
    return out


def _render(
    groups: list[_Group],
    approvals: Mapping[str, str],
    calls: Collection[str] = (),
    client_version: ClientVersion = ClientVersion.DEFAULT,
) -> list[dict[str, Any]]:
    return render_messages(
        _with_turns(groups, calls), approvals=dict(approvals), client_version=client_version
    )


def render_conversation(messages: Sequence[Message], approvals: Mapping[str, str]) -> list[dict[str, Any]]:
    """What a ``useChat`` page holds after those turns (module docstring); calls still waiting for
    a decision in ``approval-requested`` with the approval id to echo back."""
    return _render(_groups(messages), approvals)


_EARLIER: Final = "earlier"
"""The turn a continued message's earlier parts came from, when the client sent them (its steps
are not on the wire the client sends, so they are put back by the stream's rule)."""


_MARKERS: Final = frozenset(("interaction_request", "error"))


def _stored_marker(block: Block) -> bool:
    """A stored request or error as a history read from the store holds it: no part of the
    message (its parts come from the open approvals and ``interaction_parts``)."""
    return (
        isinstance(block, DataBlock)
        and block.name is None
        and isinstance(block.data, dict)
        and block.data.get("type") in _MARKERS
    )


def render_answer(
    blocks: Sequence[Block],
    *,
    message_id: str | None,
    history: Sequence[Message] = (),
    approvals: Mapping[str, str] | None = None,
    session_id: str | None = None,
    trace_id: str | None = None,
    usage: dict[str, Any] | None = None,
    finished: bool = True,
    client_version: ClientVersion = ClientVersion.DEFAULT,
) -> list[dict[str, Any]]:
    """One turn's ``blocks`` (``answer.answer_of``) as the assistant UIMessage its stream's client
    holds after it, rendered as the stored conversation renders it (``[]`` without blocks).
    ``finished=False``: the client stopped at an error, before the ``finish`` with ``usage`` and
    ``trace_id``.

    A continuation (``message_id`` names an assistant message of ``history``) is that message with
    the turn appended, as the client appends to it; otherwise a call the turn answers from
    ``history`` (a result after an approval) keeps its input and decision from there.
    """
    if not blocks:
        return []
    calls = {b.id for m in history for b in m.content if isinstance(b, ToolCallBlock) and b.id}
    # The continued message: the client's one message, or its stored contents (one per block).
    earlier = [m for m in history if message_id and m.id == message_id and m.role in ANSWER_ROLES]
    group = _Group(Message(Role.ASSISTANT, [], id=message_id), message_id)
    if earlier:
        metadata = next((m.metadata for m in earlier if m.metadata), None)
        group.message.metadata = without_note(dict(metadata)) if metadata else None
        content = [b for m in earlier for b in m.content if not _stored_marker(b)]
        group.turns.append((_EARLIER, content))
        calls -= {b.id for b in content if isinstance(b, ToolCallBlock)}
    else:
        called = {b.id for b in blocks if isinstance(b, ToolCallBlock)}
        resumed = {b.id for b in blocks if isinstance(b, ToolResultBlock) and b.id not in called}
        context: list[Block] = [
            b
            for m in history
            for b in m.content
            if isinstance(b, ToolCallBlock | ToolResultBlock) and b.id is not None and b.id in resumed
        ]
        if context:
            group.turns.append((None, context))
    group.turns.append((trace_id or "", list(blocks)))
    if session_id:
        group.metadata["sessionId"] = session_id
    if usage and finished:
        group.metadata["usage"] = usage
    if trace_id and finished:
        group.metadata["traceId"] = trace_id
    return _render([group], approvals or {}, calls, client_version)


def render_outputs(
    turn: Turn,
    *,
    continuation_id: str | None = None,
    message_id: str | None = None,
    history: Sequence[Message] = (),
    pending: Sequence[InteractionRequest] = (),
    client_version: ClientVersion = ClientVersion.DEFAULT,
    events: Iterable[Event] | None = None,
    session_id: str | None = None,
    trace_id: str | None = None,
) -> dict[str, Any]:
    """A turn as the batch ``data.outputs``: UIMessages, ``stop_reason``, ``pending_interaction``.

    The turn is ONE assistant UIMessage, the one a client holds after the stream of the same turn
    and the one ``?format=vercel`` reads back (``render_answer``; the reference returns one per
    folded message, tool info lost, Q10): id ``continuation_id``, else ``message_id``. With the
    turn's ``events`` it has everything its client read of the stream (reasoning, data, files,
    usage; up to an error's ``data-agent-error``), else what ``turn``'s messages hold;
    ``session_id`` and ``trace_id`` go into its metadata as the stream's ``start`` and ``finish``
    put them. Calls waiting for approval (``pending``, else the turn's
    last request) render ``approval-requested`` with the id to answer with.
    ``pending_interaction`` has the Agenta shape ``{"type", "id", "kind", "payload"?, "tool"}``.
    """
    usage, finished = None, True
    if events is not None:
        answer = answer_of(events, client_version)
        blocks, usage, finished = answer.blocks, answer.usage, not answer.errored
    else:
        blocks = [b for m in turn.messages for b in m.content]
    request = turn.pending_interaction
    waiting = pending or ([request] if request is not None else [])
    outputs: dict[str, Any] = {
        "messages": render_answer(
            blocks,
            message_id=continuation_id or message_id,
            history=history,
            approvals=pending_approvals(waiting),
            session_id=session_id,
            trace_id=trace_id,
            usage=usage,
            finished=finished,
            client_version=client_version,
        )
    }
    if turn.stop_reason is not None:
        outputs["stop_reason"] = turn.stop_reason
    if request is not None:
        outputs["pending_interaction"] = render_pending(request)
    return outputs
