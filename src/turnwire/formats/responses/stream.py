"""Canonical events → the Responses semantic event stream, and the ``response`` object it builds.

=========================  ============================================================================
canonical event            stream events (each with ``sequence_number``)
=========================  ============================================================================
(start)                    ``response.created``, ``response.in_progress``
message start/delta/end    ``output_item.added`` (``message``), ``content_part.added``,
(or one whole message)     ``output_text.delta``..., ``output_text.done``, ``content_part.done``,
                           ``output_item.done``
thought start/delta/end    ``output_item.added`` (``reasoning``), ``reasoning_summary_part.added``,
                           ``reasoning_summary_text.delta``..., ``.done``, ``reasoning_summary_part.done``,
                           ``output_item.done``
tool call + its result     ``mcp_call`` (``server_label`` = the agent): ``output_item.added``,
(the agent ran it)         ``mcp_call_arguments.delta``/``.done``, ``mcp_call.in_progress``,
                           ``mcp_call.completed`` (or ``.failed``), ``output_item.done`` with ``output``
client tool request        ``function_call``: ``output_item.added``, ``function_call_arguments.delta``
                           / ``.done``, ``output_item.done`` (the client answers with
                           ``function_call_output``)
approval request           ``mcp_approval_request`` (``id`` = the signed approval token):
                           ``output_item.added`` / ``.done``
tool call delta            kept until the call is written: its ``*_arguments.delta`` events are the
                           pieces when they join to the arguments' JSON text, else one delta
source url / document      ``response.output_text.annotation.added`` on the message they precede or
                           fall in (``url_citation`` / ``file_citation``, indices 0: a source is
                           not tied to a span); sources after the last message are left out
usage                      ``response.usage`` (input/output/total tokens)
error                      the response ends ``failed`` with ``error``
(finish)                   ``response.completed`` | ``response.failed`` | ``response.incomplete``
=========================  ============================================================================

A call is written once its fate is known (its result, or the request handing it to the client),
so a call the agent runs and one the client must run never look alike. A call still open when
the turn ends (the run failed or was stopped) is an ``mcp_call`` with status ``incomplete``.

Statuses: a turn that ended (also paused for an approval or a client tool: the items say what
to answer) is ``completed``; a failed one ``failed``; a stopped one ``cancelled`` (streamed as
``response.incomplete``); one cut by the token limit ``incomplete`` (``max_output_tokens``).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Sequence
from typing import Any

from turnwire.formats._function_calls import encode_arguments, encode_output
from turnwire.formats.responses.items import (
    approval_request_item,
    function_call_item,
    mcp_call_item,
    message_item,
    output_text,
    reasoning_item,
    source_annotation,
)
from turnwire.formats.responses.response import RUN_FAILED_TEXT, TERMINAL, usage_body
from turnwire.interactions import tool_call_id_of, tool_input_of, tool_name_of
from turnwire.model import (
    Done,
    ErrorEvent,
    Event,
    InteractionKind,
    InteractionRequest,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolCallDelta,
    ToolResult,
    ToolResultBlock,
    Usage,
)

Frame = dict[str, Any]


def _approval_tokens(history: Sequence[Message]) -> dict[str, str]:
    """``{call id: approval token}`` of the decisions in ``history`` (an approved call that runs
    in this turn names the request it answered)."""
    out: dict[str, str] = {}
    for msg in history:
        for block in msg.content:
            if isinstance(block, ToolResultBlock) and block.id and isinstance(block.output, dict):
                token = block.output.get("interactionToken")
                if isinstance(token, str) and isinstance(block.output.get("approved"), bool):
                    out[block.id] = token
    return out


class ResponseEncoder:
    """Encodes one turn as one response: ``start()``, ``encode(event)``, ``finish()``;
    ``response`` is the object the stream built (what ``response.completed`` carries)."""

    def __init__(self, response: dict[str, Any], server_label: str, history: Sequence[Message] = ()) -> None:
        self.response = response
        self.server_label = server_label
        self.usage: Usage | None = None
        self.stop_reason: str | None = None
        self._tokens = _approval_tokens(history)
        self._history_calls = {
            b.id: b for m in history for b in m.content if isinstance(b, ToolCallBlock) and b.id
        }
        self._seq = 0
        self._open: dict[str, Any] | None = None
        """The text or reasoning item being streamed: its item, index, kind and canonical id."""
        self._calls: dict[str, tuple[str | None, Any]] = {}
        self._written: set[str] = set()
        self._error: tuple[str, str | None] | None = None
        self._pieces: dict[str, list[str]] = {}  # streamed argument pieces by call id
        self._sources: list[dict[str, Any]] = []  # annotations waiting for the next message
        self._started = False
        self._finished = False

    @property
    def last_sequence(self) -> int:
        """The sequence number of the last event written (``-1`` before the first)."""
        return self._seq - 1

    # ------------------------------------------------------------------ plumbing
    def _event(self, kind: str, **fields: Any) -> Frame:
        frame = {"type": kind, "sequence_number": self._seq, **fields}
        self._seq += 1
        return frame

    def _snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(self.response)

    def _add(self, item: dict[str, Any]) -> tuple[int, list[Frame]]:
        index = len(self.response["output"])
        self.response["output"].append(item)
        return index, [
            self._event("response.output_item.added", output_index=index, item=copy.deepcopy(item))
        ]

    def _done(self, index: int) -> Frame:
        item = self.response["output"][index]
        return self._event("response.output_item.done", output_index=index, item=copy.deepcopy(item))

    def _item_id(self, prefix: str) -> str:
        return f"{prefix}_{self.response['id'].removeprefix('resp_')[:32]}_{len(self.response['output'])}"

    # ------------------------------------------------------------------ contract
    def start(self) -> list[Frame]:
        if self._started:
            return []
        self._started = True
        return [
            self._event("response.created", response=self._snapshot()),
            self._event("response.in_progress", response=self._snapshot()),
        ]

    def encode(self, event: Event) -> list[Frame]:
        if self._finished:
            return []
        out = self.start()
        cls = type(event)
        if cls is MessageStart:
            out += self._open_text("message", event.id)  # type: ignore[union-attr]
        elif type(event) is MessageDelta:
            out += self._delta("message", event.id, event.delta)
        elif cls is MessageEnd:
            out += self._close_if("message", event.id)  # type: ignore[union-attr]
        elif cls is MessageEvent:
            out += self._whole("message", event.text)  # type: ignore[union-attr]
        elif cls is ThoughtStart:
            out += self._open_text("reasoning", event.id)  # type: ignore[union-attr]
        elif type(event) is ThoughtDelta:
            out += self._delta("reasoning", event.id, event.delta)
        elif cls is ThoughtEnd:
            out += self._close_if("reasoning", event.id)  # type: ignore[union-attr]
        elif cls is Thought:
            out += self._whole("reasoning", event.text)  # type: ignore[union-attr]
        elif cls is ToolCall:
            if event.id and event.id not in self._written:  # type: ignore[union-attr]
                self._calls[event.id] = (event.name, event.arguments)  # type: ignore[union-attr]
        elif cls is ToolResult:
            out += self._ran(event)  # type: ignore[arg-type]
        elif type(event) is ToolCallDelta:
            if event.id not in self._written:
                self._pieces.setdefault(event.id, []).append(event.delta)
        elif cls is SourceUrl or cls is SourceDocument:
            out += self._source(event)  # type: ignore[arg-type]
        elif cls is InteractionRequest:
            out += self._request(event)  # type: ignore[arg-type]
        elif cls is Usage:
            self.usage = event  # type: ignore[assignment]
        elif cls is ErrorEvent:
            if self._error is None:
                self._error = (event.message, event.code)  # type: ignore[union-attr]
        elif cls is Done and event.stop_reason is not None:  # type: ignore[union-attr]
            self.stop_reason = event.stop_reason  # type: ignore[union-attr]
        return out

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[Frame]:
        if self._finished:
            return []
        out = self.start()
        self._finished = True
        out += self._close()
        for call_id, (name, arguments) in list(self._calls.items()):
            # Neither ran nor handed over: the run ended (failed or stopped) with the call open.
            out += self._mcp_call(call_id, name, arguments, status="incomplete")
        self._calls.clear()
        reason = stop_reason if stop_reason is not None else self.stop_reason
        response = self.response
        response["usage"] = usage_body(self.usage)
        if error is not None or self._error is not None or reason == "error":
            message, code = (error, None) if error is not None else (self._error or (None, None))
            response["status"] = "failed"
            response["error"] = {"code": code or "server_error", "message": message or RUN_FAILED_TEXT}
        elif reason == "cancelled":
            response["status"] = "cancelled"
        elif reason == "max_tokens":
            response["status"] = "incomplete"
            response["incomplete_details"] = {"reason": "max_output_tokens"}
        else:
            response["status"] = "completed"
            response["completed_at"] = int(time.time())
        out.append(self._event(TERMINAL[response["status"]], response=self._snapshot()))
        return out

    # ------------------------------------------------------------------ text and reasoning
    def _open_text(self, kind: str, canonical_id: str | None) -> list[Frame]:
        out = self._close()
        if kind == "message":
            item = message_item(self._item_id("msg"), "", status="in_progress")
        else:
            item = reasoning_item(self._item_id("rs"), [])
        index, added = self._add(item)
        out += added
        self._open = {"kind": kind, "id": canonical_id, "index": index, "text": "", "annotations": []}
        if kind == "message":
            out.append(
                self._event(
                    "response.content_part.added",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part=output_text(""),
                )
            )
            waiting, self._sources = self._sources, []
            for annotation in waiting:
                out += self._annotate(annotation)
        else:
            out.append(
                self._event(
                    "response.reasoning_summary_part.added",
                    item_id=item["id"],
                    output_index=index,
                    summary_index=0,
                    part={"type": "summary_text", "text": ""},
                )
            )
        return out

    def _delta(self, kind: str, canonical_id: str | None, delta: str) -> list[Frame]:
        out: list[Frame] = []
        current = self._open
        if current is None or current["kind"] != kind or current["id"] != canonical_id:
            out += self._open_text(kind, canonical_id)
            current = self._open
        assert current is not None
        if not delta:
            return out
        current["text"] += delta
        item_id = self.response["output"][current["index"]]["id"]
        if kind == "message":
            out.append(
                self._event(
                    "response.output_text.delta",
                    item_id=item_id,
                    output_index=current["index"],
                    content_index=0,
                    delta=delta,
                    logprobs=[],
                )
            )
        else:
            out.append(
                self._event(
                    "response.reasoning_summary_text.delta",
                    item_id=item_id,
                    output_index=current["index"],
                    summary_index=0,
                    delta=delta,
                )
            )
        return out

    def _whole(self, kind: str, text: str) -> list[Frame]:
        out = self._open_text(kind, None)
        out += self._delta(kind, None, text)
        return out + self._close()

    def _close_if(self, kind: str, canonical_id: str | None) -> list[Frame]:
        current = self._open
        if current is not None and current["kind"] == kind and current["id"] == canonical_id:
            return self._close()
        return []

    def _close(self) -> list[Frame]:
        current = self._open
        if current is None:
            return []
        self._open = None
        index, text = current["index"], current["text"]
        item = self.response["output"][index]
        out: list[Frame] = []
        if current["kind"] == "message":
            part = output_text(text)
            if current["annotations"]:
                part["annotations"] = current["annotations"]
            item["content"] = [part]
            item["status"] = "completed"
            out.append(
                self._event(
                    "response.output_text.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    text=text,
                    logprobs=[],
                )
            )
            out.append(
                self._event(
                    "response.content_part.done",
                    item_id=item["id"],
                    output_index=index,
                    content_index=0,
                    part=copy.deepcopy(part),
                )
            )
        else:
            part = {"type": "summary_text", "text": text}
            item["summary"] = [part]
            out.append(
                self._event(
                    "response.reasoning_summary_text.done",
                    item_id=item["id"],
                    output_index=index,
                    summary_index=0,
                    text=text,
                )
            )
            out.append(
                self._event(
                    "response.reasoning_summary_part.done",
                    item_id=item["id"],
                    output_index=index,
                    summary_index=0,
                    part=copy.deepcopy(part),
                )
            )
        out.append(self._done(index))
        return out

    # ------------------------------------------------------------------ sources
    def _source(self, event: SourceUrl | SourceDocument) -> list[Frame]:
        annotation = source_annotation(event)
        current = self._open
        if current is None or current["kind"] != "message":
            self._sources.append(annotation)
            return []
        return self._annotate(annotation)

    def _annotate(self, annotation: dict[str, Any]) -> list[Frame]:
        current = self._open
        assert current is not None
        annotations: list[dict[str, Any]] = current["annotations"]
        annotations.append(annotation)
        return [
            self._event(
                "response.output_text.annotation.added",
                item_id=self.response["output"][current["index"]]["id"],
                output_index=current["index"],
                content_index=0,
                annotation_index=len(annotations) - 1,
                annotation=copy.deepcopy(annotation),
            )
        ]

    def _argument_text(self, call_id: str, arguments: Any) -> tuple[str, list[str]]:
        """The call's arguments text and the deltas that carry it: the streamed pieces when they
        join to exactly that text (so the stored item and a reload read the same), else one."""
        text = encode_arguments(arguments)
        pieces = [p for p in self._pieces.pop(call_id, ()) if p]
        return text, pieces if pieces and "".join(pieces) == text else [text]

    # ------------------------------------------------------------------ calls
    def _ran(self, event: ToolResult) -> list[Frame]:
        if not event.id or event.id in self._written:
            return []
        known = self._calls.pop(event.id, None)
        if known is None:
            block = self._history_calls.get(event.id)
            known = (block.name, block.input) if block is not None else (event.name, None)
        name, arguments = known
        failed = bool(event.is_error or event.denied)
        output = event.result_output
        return self._mcp_call(
            event.id,
            name or event.name,
            arguments,
            output=output,
            error=(encode_output(output) or "tool error") if failed else None,
            status="failed" if failed else "completed",
        )

    def _mcp_call(
        self,
        call_id: str,
        name: str | None,
        arguments: Any,
        *,
        output: Any = None,
        error: str | None = None,
        status: str,
    ) -> list[Frame]:
        out = self._close()
        self._written.add(call_id)
        label, token = self.server_label, self._tokens.get(call_id)
        item = mcp_call_item(call_id, name, arguments, label, status="in_progress", approval_request_id=token)
        index, added = self._add(item)
        out += added
        args, deltas = self._argument_text(call_id, arguments)
        ids = {"item_id": call_id, "output_index": index}
        for delta in deltas:
            out.append(self._event("response.mcp_call_arguments.delta", **ids, delta=delta))
        out.append(self._event("response.mcp_call_arguments.done", **ids, arguments=args))
        out.append(self._event("response.mcp_call.in_progress", **ids))
        final = mcp_call_item(
            call_id,
            name,
            arguments,
            label,
            output=output,
            error=error,
            status=status,
            approval_request_id=token,
        )
        self.response["output"][index] = final
        if status == "completed":
            out.append(self._event("response.mcp_call.completed", **ids))
        elif status == "failed":
            out.append(self._event("response.mcp_call.failed", **ids))
        out.append(self._done(index))
        return out

    def _request(self, event: InteractionRequest) -> list[Frame]:
        call_id = tool_call_id_of(event)
        if call_id is None or call_id in self._written:
            return []
        name, arguments = tool_name_of(event), tool_input_of(event)
        if event.kind == InteractionKind.CLIENT_TOOL:
            self._calls.pop(call_id, None)
            return self._client_call(call_id, name, arguments)
        if event.kind == InteractionKind.USER_APPROVAL:
            self._calls.pop(call_id, None)
            self._written.add(call_id)
            out = self._close()
            index, added = self._add(approval_request_item(event.id, name, arguments, self.server_label))
            return out + added + [self._done(index)]
        return []

    def _client_call(self, call_id: str, name: str | None, arguments: Any) -> list[Frame]:
        out = self._close()
        self._written.add(call_id)
        item = function_call_item(call_id, name, arguments, status="in_progress", raw="")
        index, added = self._add(item)
        out += added
        args, deltas = self._argument_text(call_id, arguments)
        ids = {"item_id": item["id"], "output_index": index}
        for delta in deltas:
            out.append(self._event("response.function_call_arguments.delta", **ids, delta=delta))
        out.append(
            self._event("response.function_call_arguments.done", **ids, name=name or "", arguments=args)
        )
        self.response["output"][index] = function_call_item(call_id, name, arguments)
        out.append(self._done(index))
        return out
