"""The OpenAI Responses format: input items in and out, a turn as a ``response`` and its events.

- ``parse_messages`` / ``render_messages``: input items ⇄ canonical messages (``inbound`` / ``outbound``)
- ``parse_request`` / ``ResponsesRequest``: a ``POST /v1/responses`` body (``request``)
- ``ResponseEncoder``: canonical events → the semantic event stream and the ``response`` object it
  builds (``stream``); a batch answer is the same encoder's final object
- ``new_response`` / ``usage_body``: the ``response`` object's fields (``response``)
- the item shapes (``items``)
"""

from __future__ import annotations

from turnwire.formats import WireFormat
from turnwire.formats.responses.inbound import item_references, parse_input, parse_messages
from turnwire.formats.responses.outbound import render_each, render_messages
from turnwire.formats.responses.request import ResponsesRequest, chat_tools, parse_request
from turnwire.formats.responses.response import new_response, usage_body
from turnwire.formats.responses.stream import ResponseEncoder

FORMAT = WireFormat(
    "responses",
    parse_messages,
    render_messages,
    description="OpenAI Responses input items (message, function_call(_output), reasoning, mcp_*)",
    sources=True,
)

__all__ = [
    "FORMAT",
    "ResponseEncoder",
    "ResponsesRequest",
    "chat_tools",
    "item_references",
    "new_response",
    "parse_input",
    "parse_messages",
    "parse_request",
    "render_each",
    "render_messages",
    "usage_body",
]
