"""Canonical events → AG-UI events (JSON-ready dicts, camelCase, no ``null`` fields).

=========================  ============================================================================
canonical event            AG-UI events
=========================  ============================================================================
(start)                    ``RUN_STARTED`` (``input.messages``: the answers the run took from
                           ``resume``, which the client adds to its messages)
message start/delta/end    ``TEXT_MESSAGE_START`` (role assistant) / ``_CONTENT`` / ``_END``
message (whole)            the three of them
thought start/delta/end    ``REASONING_START`` + ``REASONING_MESSAGE_START`` / ``_CONTENT`` /
                           ``REASONING_MESSAGE_END`` + ``REASONING_END``
tool call                  ``TOOL_CALL_START`` (``parentMessageId`` = the step's last text message
                           unless reasoning or data came after it),
                           ``TOOL_CALL_ARGS`` (the arguments as JSON text), ``TOOL_CALL_END``
tool result                ``TOOL_CALL_RESULT`` (text; anything else as JSON)
interaction request        approval / user input / other: an interrupt on ``RUN_FINISHED``;
                           client tool: the call as ``TOOL_CALL_*``, listed in ``pendingToolCallIds``
data / file                ``CUSTOM`` (``name`` = the data's name / ``file``); data that is not
                           transient also as ``ACTIVITY_SNAPSHOT`` (an ``activity`` message, as in
                           the stored conversation)
usage                      ``RUN_FINISHED.usage``
tool call delta            ``TOOL_CALL_START`` at the first piece, ``TOOL_CALL_ARGS`` per piece; the
                           call's ``tool call`` sends only ``TOOL_CALL_END``
state snapshot / delta     ``STATE_SNAPSHOT`` / ``STATE_DELTA``
step start / end           ``STEP_STARTED`` / ``STEP_FINISHED`` (the agent's step names)
sub-agent start / end      ``SUBAGENT_STARTED`` / ``SUBAGENT_FINISHED`` (a run id per invocation);
                           what the agent sends between carries its ``subagentRunId``
source, tool progress,     ``CUSTOM`` (``source_url``, ``source_document``, ``tool_progress``, or the
custom                     custom event's kind)
error                      ``RUN_ERROR`` at the end (instead of ``RUN_FINISHED``)
(finish)                   ``RUN_FINISHED`` with ``outcome`` success / interrupt / cancelled
=========================  ============================================================================

Steps: model output (text, reasoning, calls) after tool results opens a new step, as an agent loop
calls the model again after running tools; ``STEP_STARTED``/``STEP_FINISHED`` bracket each step.

The order rules the AG-UI client verifies hold for every input sequence: ``RUN_STARTED`` first;
nothing after ``RUN_FINISHED``/``RUN_ERROR``; content only for an open message; every message, tool
call, reasoning span and step closed before the run ends.

Message ids: every message the run adds to the client's list (text, reasoning, a tool result, an
activity, the assistant message a call opens when no text message holds it) is named from the
turn's stored message id ``M`` in the order the run opens them: ``M``, ``M-2``, ``M-3``… The
stored conversation (``conversation``) names the turn's messages the same way, so what a client
assembled from the stream is what a history read returns, ids included, and ``M`` (a fresh
``msg-<trace id>`` per turn) keeps them unique in the thread. An agent's own message ids are only
used to tell its messages apart within the run. Tool call ids are the calls' (scoped to the
conversation by the runner).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Final

from turnwire.formats._function_calls import encode_arguments, encode_output
from turnwire.formats.agui.agent_scopes import AgentScopes, attributed
from turnwire.formats.agui.interrupts import interrupt_of
from turnwire.interactions import tool_call_id_of, tool_input_of, tool_name_of
from turnwire.model import (
    AgentEnd,
    AgentStart,
    CustomEvent,
    DataEvent,
    Done,
    ErrorEvent,
    Event,
    FileEvent,
    InteractionKind,
    InteractionRequest,
    InteractionResponse,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    SourceDocument,
    SourceUrl,
    StateDelta,
    StateSnapshot,
    StepEnd,
    StepStart,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallDelta,
    ToolProgress,
    ToolResult,
    Usage,
)
from turnwire.subagents import OpenSubagents

AgUiEvent = dict[str, Any]

UNKNOWN_TOOL: Final = "unknown_tool"
DENIED_TEXT: Final = "Tool call execution denied."
RUN_FAILED_TEXT: Final = "The agent run failed."
PROTOCOL_VERSION: Final = "1.0"
"""The AG-UI protocol version these events follow (``ag-ui-protocol`` 1.0.0's ``PROTOCOL_VERSION``)."""


class AgUiStreamEncoder(AgentScopes):
    """Encodes one run: ``start()``, ``encode(event)`` per event, then ``finish()`` exactly once.

    ``message_id``: the turn's stored message id, which names the run's messages (module docstring;
    default ``run_id``). ``input_messages``: AG-UI messages the run took beyond the client's own
    (a question's answer from ``resume``), sent in ``RUN_STARTED.input`` so the client holds them.
    ``known_tool_call_ids``: calls the client already holds (the history), whose results this run
    may report without announcing them again (a resumed approval). ``encode`` and ``finish`` start
    the run themselves if needed; after ``finish`` everything returns ``[]``.
    """

    def __init__(
        self,
        thread_id: str,
        run_id: str,
        *,
        message_id: str | None = None,
        parent_run_id: str | None = None,
        input_messages: Sequence[dict[str, Any]] = (),
        known_tool_call_ids: Iterable[str] = (),
        trace_id: str | None = None,
    ) -> None:
        self.thread_id = thread_id
        self.run_id = run_id
        self.message_id = message_id or run_id
        self.parent_run_id = parent_run_id
        self.input_messages = list(input_messages)
        self.known_tool_call_ids = set(known_tool_call_ids)
        self.trace_id = trace_id
        self.stop_reason: str | None = None
        self.usage: dict[str, int] | None = None
        self.interrupts: list[dict[str, Any]] = []
        self.pending_tool_call_ids: list[str] = []
        self.tool_names: dict[str, str] = {}
        self._error: tuple[str, str | None] | None = None
        self._open_text: dict[str, None] = {}
        self._open_reasoning: dict[str, None] = {}
        self._n_messages = 0
        self._text_ids: dict[str, str] = {}  # the agent's id of a text message → its AG-UI id
        self._reasoning_ids: dict[str, str] = {}
        self._started_text: set[str] = set()
        self._step = 0
        self._step_open = False
        self._after_tools = False
        self._parent_message: str | None = None
        self._started = False
        self._finished = False
        self._streaming_calls: dict[str, None] = {}  # calls whose arguments are still streaming
        self._agent_steps: dict[tuple[str | None, str], None] = {}  # (owner, name) of open steps
        self._subagents = OpenSubagents()
        self._owners: dict[str, str | None] = {}  # a message's or call's subagentRunId, at its opening
        self._interrupts_of: dict[str, list[str]] = {}  # a sub-agent's run id → its interrupts' ids

    @property
    def finished(self) -> bool:
        return self._finished

    def start(self) -> list[AgUiEvent]:
        if self._started:
            return []
        self._started = True
        event: AgUiEvent = {
            "type": "RUN_STARTED",
            "threadId": self.thread_id,
            "runId": self.run_id,
            "protocolVersion": PROTOCOL_VERSION,
        }
        if self.parent_run_id:
            event["parentRunId"] = self.parent_run_id
        if self.input_messages:
            # The client adds the ones it does not hold (by id): the answers made from resume.
            event["input"] = {
                "threadId": self.thread_id,
                "runId": self.run_id,
                "messages": self.input_messages,
            }
        return [event]

    def encode(self, event: Event) -> list[AgUiEvent]:
        if self._finished:
            return []
        handler = _HANDLERS.get(type(event))
        if handler is None:
            return []
        out = self.start()
        out += handler(self, event)
        return out

    def finish(self, stop_reason: str | None = None, *, error: str | None = None) -> list[AgUiEvent]:
        """Close the run. ``stop_reason`` beats the agent's ``done``; ``error`` reports a failure."""
        if self._finished:
            return []
        out = self.start()
        reason = stop_reason if stop_reason is not None else self.stop_reason
        key = (reason or "").strip().lower()
        out += self._close_parts()
        out += self._close_step()
        self._finished = True
        if error is not None or self._error is not None or key == "error":
            message, code = (
                (error, "agent_run_failed") if error is not None else self._error or (RUN_FAILED_TEXT, None)
            )
            # A sub-agent open when the run fails failed with it (SUBAGENT_ERROR, not a success).
            out += self._close_agent_scopes(failed=(message or RUN_FAILED_TEXT, code))
            failed: AgUiEvent = {"type": "RUN_ERROR", "message": message or RUN_FAILED_TEXT}
            if code:
                failed["code"] = code
            out.append(failed)
            return out
        out += self._close_agent_scopes(suspended=key == "paused" and bool(self.interrupts))
        finished: AgUiEvent = {"type": "RUN_FINISHED", "threadId": self.thread_id, "runId": self.run_id}
        if key == "cancelled":
            finished["outcome"] = {"type": "cancelled"}
        elif key == "paused" and self.interrupts:
            finished["outcome"] = {"type": "interrupt", "interrupts": self.interrupts}
        elif self.pending_tool_call_ids:
            finished["outcome"] = {"type": "success", "pendingToolCallIds": self.pending_tool_call_ids}
        else:
            finished["outcome"] = {"type": "success"}
        if self.usage:
            finished["usage"] = [self.usage]
        meta = {k: v for k, v in (("stopReason", reason), ("traceId", self.trace_id)) if v}
        if meta:
            finished["metadata"] = {"turnwire": meta}
        out.append(finished)
        return out

    # ----------------------------------------------------------------- steps and messages

    def _output(self) -> list[AgUiEvent]:
        """Before model output: open the first step, or a new one after tool results."""
        if self._step_open and not self._after_tools:
            return []
        out = self._close_parts() + self._close_step() if self._step_open else []
        self._step += 1
        self._step_open = True
        self._after_tools = False
        self._parent_message = None
        out.append({"type": "STEP_STARTED", "stepName": f"step-{self._step}"})
        return out

    def _in_step(self) -> list[AgUiEvent]:
        """Before a result or a custom event: inside a step, without starting a new one."""
        if self._step_open:
            return []
        self._step += 1
        self._step_open = True
        return [{"type": "STEP_STARTED", "stepName": f"step-{self._step}"}]

    def _close_step(self) -> list[AgUiEvent]:
        if not self._step_open:
            return []
        self._step_open = False
        return [{"type": "STEP_FINISHED", "stepName": f"step-{self._step}"}]

    def _close_parts(self) -> list[AgUiEvent]:
        out: list[AgUiEvent] = [
            self._of_call({"type": "TOOL_CALL_END", "toolCallId": i}) for i in self._streaming_calls
        ]
        self._streaming_calls.clear()
        out += [self._of_message({"type": "TEXT_MESSAGE_END", "messageId": i}) for i in self._open_text]
        for i in self._open_reasoning:
            out += self._reasoning_end(i)
        self._open_text.clear()
        self._open_reasoning.clear()
        return out

    def _opened(self, event: AgUiEvent, key: str) -> AgUiEvent:
        """An opener: attributed to the (sub-)agent speaking now, which its later events keep."""
        owner = self._owners[key] = self.owner
        return attributed(event, owner)

    def _of_message(self, event: AgUiEvent) -> AgUiEvent:
        return attributed(event, self._owners.get(event["messageId"]))

    def _of_call(self, event: AgUiEvent) -> AgUiEvent:
        return attributed(event, self._owners.get(event["toolCallId"]))

    def _reasoning_end(self, message_id: str) -> list[AgUiEvent]:
        return [
            self._of_message({"type": "REASONING_MESSAGE_END", "messageId": message_id}),
            self._of_message({"type": "REASONING_END", "messageId": message_id}),
        ]

    def _new_id(self) -> str:
        """The next message of the run: ``M``, ``M-2``, ``M-3``… (module docstring)."""
        self._n_messages += 1
        n = self._n_messages
        return self.message_id if n == 1 else f"{self.message_id}-{n}"

    def _named(self, names: dict[str, str], event_id: str) -> str:
        """The AG-UI id of the agent's message ``event_id`` (a new one unless it is still open:
        an agent may reuse its ids once a message ended, the store keeps a new message then)."""
        message_id = names.get(event_id)
        if message_id is None:
            message_id = names[event_id] = self._new_id()
        return message_id

    def _open_text_message(self, message_id: str) -> list[AgUiEvent]:
        out = self._output()
        if message_id not in self._open_text:
            self._open_text[message_id] = None
            start = {"type": "TEXT_MESSAGE_START", "messageId": message_id, "role": "assistant"}
            out.append(self._opened(start, message_id))
            if message_id not in self._started_text:
                # The calls after a new text message are its; one reopened in a later step (the
                # agent had not ended it) stands earlier in the client's list than the calls
                # made since, so it takes none (as in the stored conversation).
                self._started_text.add(message_id)
                self._parent_message = message_id
        return out

    def _open_reasoning_message(self, message_id: str) -> list[AgUiEvent]:
        out = self._output()
        # A call after this belongs after it: parented to the text before, the client would hold
        # the call (and its result) ahead of this reasoning.
        self._parent_message = None
        if message_id not in self._open_reasoning:
            self._open_reasoning[message_id] = None
            out.append(self._opened({"type": "REASONING_START", "messageId": message_id}, message_id))
            start = {"type": "REASONING_MESSAGE_START", "messageId": message_id, "role": "reasoning"}
            out.append(self._of_message(start))
        return out

    def _message(self, event: MessageEvent) -> list[AgUiEvent]:
        message_id = self._new_id()
        out = self._open_text_message(message_id)
        if event.text:
            content = {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": event.text}
            out.append(self._of_message(content))
        del self._open_text[message_id]
        out.append(self._of_message({"type": "TEXT_MESSAGE_END", "messageId": message_id}))
        return out

    def _message_start(self, event: MessageStart) -> list[AgUiEvent]:
        return self._open_text_message(self._named(self._text_ids, event.id))

    def _message_delta(self, event: MessageDelta) -> list[AgUiEvent]:
        message_id = self._named(self._text_ids, event.id)
        # A delta continues its open message even after tool results; only a new message opens a step.
        out = [] if message_id in self._open_text else self._open_text_message(message_id)
        if event.delta:  # an empty delta says nothing; older clients reject it
            content = {"type": "TEXT_MESSAGE_CONTENT", "messageId": message_id, "delta": event.delta}
            out.append(self._of_message(content))
        return out

    def _message_end(self, event: MessageEnd) -> list[AgUiEvent]:
        message_id = self._text_ids.pop(event.id, None)
        if message_id is None or message_id not in self._open_text:
            return []
        del self._open_text[message_id]
        return [self._of_message({"type": "TEXT_MESSAGE_END", "messageId": message_id})]

    def _thought(self, event: Thought) -> list[AgUiEvent]:
        message_id = self._new_id()
        out = self._open_reasoning_message(message_id)
        if event.text:
            content = {"type": "REASONING_MESSAGE_CONTENT", "messageId": message_id, "delta": event.text}
            out.append(self._of_message(content))
        del self._open_reasoning[message_id]
        out += self._reasoning_end(message_id)
        return out

    def _thought_start(self, event: ThoughtStart) -> list[AgUiEvent]:
        return self._open_reasoning_message(self._named(self._reasoning_ids, event.id))

    def _thought_delta(self, event: ThoughtDelta) -> list[AgUiEvent]:
        message_id = self._named(self._reasoning_ids, event.id)
        out = [] if message_id in self._open_reasoning else self._open_reasoning_message(message_id)
        if event.delta:
            content = {"type": "REASONING_MESSAGE_CONTENT", "messageId": message_id, "delta": event.delta}
            out.append(self._of_message(content))
        return out

    def _thought_end(self, event: ThoughtEnd) -> list[AgUiEvent]:
        message_id = self._reasoning_ids.pop(event.id, None)
        if message_id is None or message_id not in self._open_reasoning:
            return []
        del self._open_reasoning[message_id]
        return self._reasoning_end(message_id)

    # ----------------------------------------------------------------- tools

    def has_call(self, call_id: str | None) -> bool:
        return call_id is not None and (call_id in self.tool_names or call_id in self.known_tool_call_ids)

    def announce_call(self, call_id: str, name: str | None, arguments: Any) -> list[AgUiEvent]:
        """``TOOL_CALL_START``/``_ARGS``/``_END`` for a call not yet sent in this run (else nothing:
        a call that ended cannot take new arguments). A call whose arguments streamed
        (``tool_call_delta``) gets only its ``TOOL_CALL_END``: the client joined the pieces."""
        if call_id in self._streaming_calls:
            del self._streaming_calls[call_id]
            return [self._of_call({"type": "TOOL_CALL_END", "toolCallId": call_id})]
        if call_id in self.tool_names:
            return []
        out = self._start_call(call_id, name)
        out += (
            self._of_call(
                {"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": encode_arguments(arguments)}
            ),
            self._of_call({"type": "TOOL_CALL_END", "toolCallId": call_id}),
        )
        return out

    def _start_call(self, call_id: str, name: str | None) -> list[AgUiEvent]:
        out = self._output()
        self.tool_names[call_id] = name or UNKNOWN_TOOL
        start: AgUiEvent = {
            "type": "TOOL_CALL_START",
            "toolCallId": call_id,
            "toolCallName": name or UNKNOWN_TOOL,
        }
        owner = self.owner
        if self._parent_message is None or self._owners.get(self._parent_message) != owner:
            # No text message of this (sub-)agent holds the call (a call belongs to the message
            # that carries it): the client opens an assistant message under the id named here
            # (one it does not hold yet), where the stored conversation has it; the calls after
            # it join it, as they do in the history.
            self._parent_message = self._new_id()
            self._owners[self._parent_message] = owner
        start["parentMessageId"] = self._parent_message
        out.append(self._opened(start, call_id))
        return out

    def _tool_call_delta(self, event: ToolCallDelta) -> list[AgUiEvent]:
        """``TOOL_CALL_START`` at the first piece, then a ``TOOL_CALL_ARGS`` per non-empty piece;
        the call's ``tool_call`` ends it."""
        call_id = event.id
        out: list[AgUiEvent] = []
        if call_id not in self._streaming_calls:
            if call_id in self.tool_names or call_id in self.known_tool_call_ids:
                return []  # the call ended (or the client holds it): it takes no more arguments
            out = self._start_call(call_id, event.name)
            self._streaming_calls[call_id] = None
        if event.delta:
            out.append(self._of_call({"type": "TOOL_CALL_ARGS", "toolCallId": call_id, "delta": event.delta}))
        return out

    def _tool_call(self, event: ToolCall) -> list[AgUiEvent]:
        if not event.id:
            return []
        return self.announce_call(event.id, event.name, event.arguments)

    def _tool_result(self, event: ToolResult) -> list[AgUiEvent]:
        call_id = event.id
        if call_id is None or not self.has_call(call_id):
            return []  # the client holds no call to attach it to
        if event.denied:
            text = encode_output(event.output) or DENIED_TEXT
        else:
            text = encode_output(event.result_output)  # data when given: the one output rule
        out = self._in_step()
        result = {
            "type": "TOOL_CALL_RESULT",
            "messageId": self._new_id(),
            "toolCallId": call_id,
            "content": text,
            "role": "tool",
        }
        out.append(attributed(result, self.owner))
        self._after_tools = True
        return out

    # ----------------------------------------------------------------- everything else

    def _interaction(self, event: InteractionRequest) -> list[AgUiEvent]:
        out: list[AgUiEvent] = []
        if event.kind in (InteractionKind.USER_APPROVAL, InteractionKind.CLIENT_TOOL):
            call_id = tool_call_id_of(event)
            if call_id is not None and call_id not in self.known_tool_call_ids:
                out += self.announce_call(call_id, tool_name_of(event), tool_input_of(event))
            if event.kind == InteractionKind.CLIENT_TOOL:
                if call_id is not None and call_id not in self.pending_tool_call_ids:
                    self.pending_tool_call_ids.append(call_id)
                return out
        owner = self.owner
        interrupt = interrupt_of(event, owner)
        if interrupt is not None:
            self.interrupts = [i for i in self.interrupts if i["id"] != interrupt["id"]]
            self.interrupts.append(interrupt)
            if owner is not None and interrupt["id"] not in self._interrupts_of.setdefault(owner, []):
                self._interrupts_of[owner].append(interrupt["id"])
        return out

    def _data(self, event: DataEvent) -> list[AgUiEvent]:
        out = self._in_step()
        owner = self.owner
        out.append(attributed({"type": "CUSTOM", "name": event.name or "data", "value": event.data}, owner))
        if not event.transient:
            # The client keeps it as an activity message, as the stored conversation reads back;
            # a call after it is not the text's before it (see _open_reasoning_message).
            self._parent_message = None
            activity = {
                "type": "ACTIVITY_SNAPSHOT",
                "messageId": self._new_id(),
                "activityType": event.name or "data",
                "content": event.data if isinstance(event.data, dict) else {"value": event.data},
            }
            out.append(attributed(activity, owner))
        return out

    def _file(self, event: FileEvent) -> list[AgUiEvent]:
        return self._custom_event("file", {"url": event.url, "mediaType": event.media_type})

    def _usage(self, event: Usage) -> list[AgUiEvent]:
        usage = {
            key: value
            for key, value in (
                ("inputTokens", event.input),
                ("outputTokens", event.output),
                ("totalTokens", event.total),
            )
            if isinstance(value, int) and value >= 0
        }
        self.usage = usage or None
        return []

    def _error_event(self, event: ErrorEvent) -> list[AgUiEvent]:
        if self._error is None:
            self._error = (event.message, event.code)
        return []

    def _done(self, event: Done) -> list[AgUiEvent]:
        if event.stop_reason is not None:
            self.stop_reason = event.stop_reason
        if event.trace_id:
            self.trace_id = event.trace_id
        return []

    def _ignore(self, event: Event) -> list[AgUiEvent]:
        return []


_HANDLERS: Final[dict[type, Any]] = {
    MessageEvent: AgUiStreamEncoder._message,
    MessageStart: AgUiStreamEncoder._message_start,
    MessageDelta: AgUiStreamEncoder._message_delta,
    MessageEnd: AgUiStreamEncoder._message_end,
    Thought: AgUiStreamEncoder._thought,
    ThoughtStart: AgUiStreamEncoder._thought_start,
    ThoughtDelta: AgUiStreamEncoder._thought_delta,
    ThoughtEnd: AgUiStreamEncoder._thought_end,
    ToolCall: AgUiStreamEncoder._tool_call,
    ToolResult: AgUiStreamEncoder._tool_result,
    InteractionRequest: AgUiStreamEncoder._interaction,
    InteractionResponse: AgUiStreamEncoder._ignore,
    DataEvent: AgUiStreamEncoder._data,
    FileEvent: AgUiStreamEncoder._file,
    Usage: AgUiStreamEncoder._usage,
    ErrorEvent: AgUiStreamEncoder._error_event,
    Done: AgUiStreamEncoder._done,
    SourceUrl: AgUiStreamEncoder._source_url,
    SourceDocument: AgUiStreamEncoder._source_document,
    ToolCallDelta: AgUiStreamEncoder._tool_call_delta,
    ToolProgress: AgUiStreamEncoder._tool_progress,
    StateSnapshot: AgUiStreamEncoder._state_snapshot,
    StateDelta: AgUiStreamEncoder._state_delta,
    StepStart: AgUiStreamEncoder._step_start,
    StepEnd: AgUiStreamEncoder._step_end,
    AgentStart: AgUiStreamEncoder._agent_start,
    AgentEnd: AgUiStreamEncoder._agent_end,
    CustomEvent: AgUiStreamEncoder._custom,
}
