"""The Responses item shapes turnwire writes, once, for both the input-item list
(``render_messages``) and a response's ``output`` (``stream``)."""

from __future__ import annotations

from typing import Any

from turnwire.formats._function_calls import encode_arguments, encode_output
from turnwire.model import SourceDocument, SourceDocumentBlock, SourceUrl, SourceUrlBlock


def output_text(text: str) -> dict[str, Any]:
    return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}


def source_annotation(
    source: SourceUrl | SourceDocument | SourceUrlBlock | SourceDocumentBlock,
) -> dict[str, Any]:
    """A source as an ``output_text`` annotation: ``url_citation`` (the URL is the title when it
    has none) or ``file_citation`` (the source id as ``file_id``; the filename, else the title).
    The indices are 0: a source names no span of the text."""
    if isinstance(source, SourceUrl | SourceUrlBlock):
        title = source.title or source.url
        return {"type": "url_citation", "url": source.url, "title": title, "start_index": 0, "end_index": 0}
    filename = source.filename or source.title
    return {"type": "file_citation", "file_id": source.id, "filename": filename, "index": 0}


def message_item(item_id: str, text: str, *, status: str = "completed") -> dict[str, Any]:
    content = [output_text(text)] if status == "completed" or text else []
    return {"id": item_id, "type": "message", "status": status, "role": "assistant", "content": content}


def reasoning_item(item_id: str, summary: list[str]) -> dict[str, Any]:
    return {
        "id": item_id,
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": t} for t in summary],
    }


def function_call_item(
    call_id: str, name: str | None, arguments: Any, *, status: str = "completed", raw: str | None = None
) -> dict[str, Any]:
    """A call the client runs (``id`` = ``fc_<call id>``, ``call_id`` = the call's own id)."""
    return {
        "id": f"fc_{call_id}",
        "type": "function_call",
        "status": status,
        "call_id": call_id,
        "name": name or "",
        "arguments": raw if raw is not None else encode_arguments(arguments),
    }


def mcp_call_item(
    call_id: str,
    name: str | None,
    arguments: Any,
    server_label: str,
    *,
    output: Any = None,
    error: str | None = None,
    status: str = "completed",
    approval_request_id: str | None = None,
) -> dict[str, Any]:
    """A call the agent ran itself: OpenAI's shape for a server-side tool, its output inside."""
    item: dict[str, Any] = {
        "id": call_id,
        "type": "mcp_call",
        "server_label": server_label,
        "name": name or "",
        "arguments": encode_arguments(arguments),
        "output": None if error is not None or status == "in_progress" else encode_output(output),
        "error": error,
        "status": status,
    }
    if approval_request_id:
        item["approval_request_id"] = approval_request_id
    return item


def approval_request_item(token: str, name: str | None, arguments: Any, server_label: str) -> dict[str, Any]:
    """The agent asks to run a tool: ``id`` is the signed one-shot approval token."""
    return {
        "id": token,
        "type": "mcp_approval_request",
        "server_label": server_label,
        "name": name or "",
        "arguments": encode_arguments(arguments),
    }
