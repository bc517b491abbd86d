"""The ``response`` object: its fields as a request sets them, its ``usage``, and the stream event
that ends it for each final status."""

from __future__ import annotations

import time
from typing import Any, Final

from turnwire.model import Usage

RUN_FAILED_TEXT: Final = "The agent run failed."
TERMINAL: Final = {
    "completed": "response.completed",
    "failed": "response.failed",
    "incomplete": "response.incomplete",
    "cancelled": "response.incomplete",
}
"""Final status → the stream event that carries the whole response at the end."""


def usage_body(usage: Usage | None) -> dict[str, Any]:
    """``Usage`` → Responses ``usage`` (missing counts are 0; the total defaults to their sum)."""
    given = usage.input if usage is not None and usage.input is not None else 0
    made = usage.output if usage is not None and usage.output is not None else 0
    total = usage.total if usage is not None and usage.total is not None else given + made
    return {
        "input_tokens": given,
        # openai 3.x declares both counts required (InputTokensDetails); none are known here.
        "input_tokens_details": {"cache_write_tokens": 0, "cached_tokens": 0},
        "output_tokens": made,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": total,
    }


def new_response(
    response_id: str,
    model: str,
    *,
    created_at: int | None = None,
    instructions: str | None = None,
    metadata: dict[str, str] | None = None,
    previous_response_id: str | None = None,
    store: bool = True,
    tools: list[dict[str, Any]] | None = None,
    tool_choice: Any = "auto",
    parallel_tool_calls: bool = True,
    conversation: str | None = None,
    parameters: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A ``response`` object in progress, its request's fields echoed."""
    params = parameters or {}
    return {
        "id": response_id,
        "object": "response",
        "created_at": created_at if created_at is not None else int(time.time()),
        "status": "in_progress",
        "background": False,
        "completed_at": None,
        "conversation": {"id": conversation} if conversation else None,
        "error": None,
        "incomplete_details": None,
        "instructions": instructions,
        "max_output_tokens": params.get("max_output_tokens"),
        "metadata": metadata or {},
        "model": model,
        "output": [],
        "parallel_tool_calls": parallel_tool_calls,
        "previous_response_id": previous_response_id,
        "reasoning": params.get("reasoning"),
        "store": store,
        "temperature": params.get("temperature"),
        "text": params.get("text") or {"format": {"type": "text"}},
        "tool_choice": tool_choice,
        "tools": tools or [],
        "top_p": params.get("top_p"),
        "truncation": params.get("truncation") or "disabled",
        "usage": None,
        "user": params.get("user"),
    }
