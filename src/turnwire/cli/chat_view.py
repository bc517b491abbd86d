"""How `turnwire chat` shows a conversation: events rendered as they arrive (rich)."""

from __future__ import annotations

import json
import re
from typing import Any

from rich.console import Console, RenderableType
from rich.live import Live
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from turnwire.model import (
    UNSET,
    DataEvent,
    ErrorEvent,
    Event,
    FileEvent,
    Message,
    MessageDelta,
    MessageEnd,
    MessageEvent,
    MessageStart,
    ReasoningBlock,
    TextBlock,
    Thought,
    ThoughtDelta,
    ThoughtEnd,
    ThoughtStart,
    ToolCall,
    ToolCallBlock,
    ToolResult,
    ToolResultBlock,
)


def as_text(value: Any) -> str:
    """A tool's input or output as a person reads it: strings as they are, the rest as JSON."""
    if value is UNSET or value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


_SAYS_IT_FAILED = re.compile(r"^[^:\n]{0,60}\bfailed: ")


def error_text(message: str) -> str:
    """An error as shown: with one prefix. turnwire's own failures already say what failed
    (``Agent run failed: …``), so ``error: `` is put only before messages that do not."""
    return message if _SAYS_IT_FAILED.match(message) else f"error: {message}"


class TurnView:
    """Renders one turn's events. Text streams live as markdown, reasoning dim, tools as panels."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self._live: Live | None = None
        self._kind = ""
        self._buffer = ""
        self._tool_names: dict[str, str] = {}

    def show(self, event: Event) -> None:
        if isinstance(event, MessageStart | ThoughtStart):
            self._open("text" if isinstance(event, MessageStart) else "thought")
        elif isinstance(event, MessageDelta | ThoughtDelta):
            kind = "text" if isinstance(event, MessageDelta) else "thought"
            if self._kind != kind:
                self._open(kind)
            self._buffer += event.delta
            self._refresh()
        elif isinstance(event, MessageEnd | ThoughtEnd):
            self.close()
        elif isinstance(event, MessageEvent):
            self.close()
            self.console.print(Markdown(event.text))
        elif isinstance(event, Thought):
            self.close()
            self.console.print(Text(event.text, style="dim italic"))
        elif isinstance(event, ToolCall):
            self.close()
            self.tool_call(event.id, event.name, event.arguments)
        elif isinstance(event, ToolResult):
            self.close()
            self.tool_result(
                event.id, event.output if event.data is None else event.data, event.is_error, event.denied
            )
        elif isinstance(event, ErrorEvent):
            self.close()
            self.console.print(Text(error_text(event.message), style="bold red"))
        elif isinstance(event, DataEvent) and not event.transient:
            self.close()
            self.console.print(Text(f"[{event.name or 'data'}] {as_text(event.data)}", style="cyan"))
        elif isinstance(event, FileEvent):
            self.close()
            self.console.print(Text(f"file {event.media_type}: {event.url[:120]}", style="cyan"))

    def tool_call(self, call_id: str | None, name: str | None, arguments: Any) -> None:
        if call_id and name:
            self._tool_names[call_id] = name
        body = as_text(arguments) or "(no input)"
        self.console.print(
            Panel(Text(body), title=f"tool call: {name}", title_align="left", border_style="blue")
        )

    def tool_result(
        self, call_id: str | None, output: Any, is_error: bool | None, denied: bool | None = None
    ) -> None:
        name = self._tool_names.get(call_id or "", "")
        if denied:
            body, style, label = "denied", "yellow", "denied"
        else:
            body, style, label = as_text(output) or "(no output)", "red" if is_error else "green", "result"
        title = f"{label}: {name}" if name else label
        self.console.print(Panel(Text(body), title=title, title_align="left", border_style=style))

    def _open(self, kind: str) -> None:
        self.close()
        self._kind = kind
        self._buffer = ""
        self._live = Live(self._renderable(), console=self.console, refresh_per_second=12, transient=False)
        self._live.start()

    def _renderable(self) -> RenderableType:
        if self._kind == "thought":
            return Text(self._buffer, style="dim italic")
        return Markdown(self._buffer)

    def _refresh(self) -> None:
        # Redrawn by Live's own timer (12 times a second), not once per delta: re-rendering the
        # whole markdown on every delta would cost quadratic time on a long reply.
        if self._live is not None:
            self._live.update(self._renderable())

    def close(self) -> None:
        """Finish the part being streamed (its last rendering stays on screen)."""
        if self._live is not None:
            self._live.update(self._renderable(), refresh=True)
            self._live.stop()
            self._live = None
        self._kind = ""
        self._buffer = ""

    def history(self, messages: list[Message]) -> None:
        """A resumed conversation, as it was."""
        for msg in messages:
            for block in msg.content:
                if isinstance(block, TextBlock) and msg.role == "user":
                    self.console.print(Text(f"you> {block.text}", style="bold"))
                elif isinstance(block, TextBlock):
                    self.console.print(Markdown(block.text))
                elif isinstance(block, ReasoningBlock):
                    self.console.print(Text(block.text, style="dim italic"))
                elif isinstance(block, ToolCallBlock):
                    self.tool_call(block.id, block.name, block.input)
                elif isinstance(block, ToolResultBlock):
                    output = block.output
                    if isinstance(output, dict) and "approved" in output and "interactionToken" in output:
                        verdict = "approved" if output["approved"] is True else "denied"
                        self.console.print(Text(f"({verdict})", style="dim"))
                        continue
                    self.tool_result(block.id, output, block.is_error)
