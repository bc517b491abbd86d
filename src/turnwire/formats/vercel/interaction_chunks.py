"""``interaction_request`` events → UI Message Stream chunks (spec table, reference §8.1), the
parts a client keeps of them (``interaction_parts``, for the stored conversation and the batch),
and an agent's own approval decisions (``interaction_response``) as ai 7's automatic ones.

The tool a request is about is read with ``turnwire.interactions``, the same ladder the batch
``pending_interaction.tool`` uses, so stream and batch never name a tool differently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from turnwire.formats.vercel.versions import ClientVersion
from turnwire.interactions import tool_call_id_of, tool_call_of, tool_input_of, tool_name_of, tool_title_of
from turnwire.model import (
    Block,
    DataBlock,
    InteractionKind,
    InteractionRequest,
    InteractionResponse,
    ToolCallBlock,
    UnknownBlock,
)

if TYPE_CHECKING:
    from turnwire.formats.vercel.stream import UIStreamEncoder

Chunk = dict[str, Any]


def _resolved_name(request: InteractionRequest) -> str | None:
    """The ladder's name, unless it only fell back to the request's ``kind`` (not a tool name)."""
    name = tool_name_of(request)
    payload = request.payload if isinstance(request.payload, dict) else {}
    if name == request.kind and payload.get("toolName") != name and tool_call_of(request) is None:
        return None
    return name


def _generic(request: InteractionRequest) -> list[Chunk]:
    return [
        {
            "type": "data-interaction",
            "id": request.id,
            "data": {"kind": request.kind, "payload": request.payload},
        }
    ]


def interaction_chunks(encoder: UIStreamEncoder, request: InteractionRequest) -> list[Chunk]:
    """The chunks for one request; tool parts are announced through ``encoder`` so names stay stable.

    - ``user_approval``: the call (synthesised when unseen; refreshed only with real input; the
      approval's resolved name may upgrade a display name), an optional ``data-approval-manifest``,
      then ``tool-approval-request{approvalId: request.id, toolCallId}`` (ai 7: ``signature`` = the
      same signed token). Clients without approval chunks (v5) get ``data-interaction`` instead of
      the approval request.
    - ``user_input``: ``data-input-request{id, data: payload}``.
    - ``client_tool``: the call the client must run, plus ``data-render`` when the payload has one.
    - other kinds, or a tool request naming no call: ``data-interaction{id, data: {kind, payload}}``.
    """
    kind = request.kind
    if kind == InteractionKind.USER_INPUT:
        return [{"type": "data-input-request", "id": request.id, "data": request.payload}]
    if kind not in (InteractionKind.USER_APPROVAL, InteractionKind.CLIENT_TOOL):
        return _generic(request)
    call_id = tool_call_id_of(request)
    if call_id is None:
        return _generic(request)
    payload = request.payload if isinstance(request.payload, dict) else {}
    arguments = tool_input_of(request)
    name = _resolved_name(request)
    title = tool_title_of(request)
    if kind == InteractionKind.CLIENT_TOOL:
        chunks = encoder.tool_input(call_id, name, arguments, title=title)
        if payload.get("render") is not None:
            chunks.append(
                {"type": "data-render", "data": {"toolCallId": call_id, "render": payload["render"]}}
            )
        return chunks
    chunks = []
    if not encoder.has_call(call_id):
        chunks += encoder.tool_input(call_id, name, arguments, title=title)
    elif arguments:
        chunks += encoder.tool_input(call_id, name, arguments, rename=True, title=title)
    elif name:
        encoder.tool_names[call_id] = name  # later refreshes carry the resolved name
    if payload.get("manifest") is not None:
        data = {"toolCallId": call_id, "approvalId": request.id, "manifest": payload["manifest"]}
        chunks.append({"type": "data-approval-manifest", "id": call_id, "data": data})
    if encoder.approval_chunks:
        chunk: Chunk = {"type": "tool-approval-request", "approvalId": request.id, "toolCallId": call_id}
        if encoder.client_version is ClientVersion.V7:
            # The request id is turnwire's signed approval token: as ``signature`` a stock ai 7
            # client keeps it on the part and returns it with the decision (read as the token).
            chunk["signature"] = request.id
        chunks.append(chunk)
    else:
        chunks += _generic(request)
    return chunks


def decision_chunks(encoder: UIStreamEncoder, response: InteractionResponse) -> list[Chunk]:
    """An approval decided without the user (the agent's own policy): ai 7 shows it as an
    automatic request answered at once, ``tool-approval-request{isAutomatic: true}`` then
    ``tool-approval-response``, for a call the client holds. Older clients have no chunk for a
    decision (nor does any client for another kind of answer): nothing is sent."""
    payload = response.payload if isinstance(response.payload, dict) else {}
    call_id, approved = payload.get("toolCallId"), payload.get("approved")
    if (
        encoder.client_version is not ClientVersion.V7
        or response.kind != InteractionKind.USER_APPROVAL
        or not isinstance(approved, bool)
        or not isinstance(call_id, str)
        or not encoder.has_call(call_id)
    ):
        return []
    request: Chunk = {"type": "tool-approval-request", "approvalId": response.id, "toolCallId": call_id}
    request["isAutomatic"] = True
    answer: Chunk = {"type": "tool-approval-response", "approvalId": response.id, "approved": approved}
    reason = payload.get("reason")
    if isinstance(reason, str) and reason:
        answer["reason"] = reason
    return [request, answer]


def interaction_parts(request: InteractionRequest) -> list[Block]:
    """What a client holds of ``interaction_chunks(request)`` beside the tool part states (an
    approval's ``approval-requested`` comes from the open approvals): the ``data-input-request``,
    ``data-interaction`` and ``data-approval-manifest`` parts, with their ids (raw parts, as
    ``UnknownBlock``: a ``DataBlock`` has no id), and a client tool's call with its ``data-render``.
    An approval's call is the stored call; AI SDK 5's ``data-interaction`` for an approval is not
    in a stored conversation (it is read for the current SDK)."""
    kind = request.kind
    if kind == InteractionKind.USER_INPUT:
        return [UnknownBlock({"type": "data-input-request", "id": request.id, "data": request.payload})]
    call_id = tool_call_id_of(request)
    if kind not in (InteractionKind.USER_APPROVAL, InteractionKind.CLIENT_TOOL) or call_id is None:
        return [UnknownBlock(_generic(request)[0])]
    payload = request.payload if isinstance(request.payload, dict) else {}
    if kind == InteractionKind.CLIENT_TOOL:
        arguments = tool_input_of(request)
        blocks: list[Block] = [ToolCallBlock(call_id, _resolved_name(request), arguments)]
        if payload.get("render") is not None:
            blocks.append(DataBlock({"toolCallId": call_id, "render": payload["render"]}, "render"))
        return blocks
    if payload.get("manifest") is None:
        return []
    data = {"toolCallId": call_id, "approvalId": request.id, "manifest": payload["manifest"]}
    return [UnknownBlock({"type": "data-approval-manifest", "id": call_id, "data": data})]
