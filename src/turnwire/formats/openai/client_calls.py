"""What a turn hands the client to call: client tools, and approvals as ``turnwire_approval`` calls.

Also the ``executed_tool_calls`` extension: tools the agent ran itself are no ``tool_calls`` (the
client must not run them again), so each executed call and its output go out under that key on
the message (batch) or delta (stream), which OpenAI clients ignore and turnwire-aware ones read.
"""

from __future__ import annotations

from typing import Any, Final

from turnwire.formats._function_calls import encode_output
from turnwire.formats.openai.approvals import APPROVAL_TOOL, approval_arguments
from turnwire.formats.openai.outbound import tool_call
from turnwire.interactions import tool_call_id_of, tool_input_of, tool_name_of
from turnwire.model import InteractionKind, InteractionRequest

EXECUTED_KEY: Final = "executed_tool_calls"


def client_call(request: InteractionRequest, session_id: str | None = None) -> dict[str, Any] | None:
    """The ``tool_calls`` entry (no index) a request becomes, or ``None`` when it is no call:

    - ``client_tool``: the call itself (id, name, arguments);
    - ``user_approval`` naming a call: a ``turnwire_approval`` call whose id is the approval id
      (``session_id``: the conversation it was issued in, for clients that keep no session);
    - anything else (user input: the agent's text asks; the next user message answers): ``None``.
    """
    call_id = tool_call_id_of(request)
    if call_id is None:
        return None
    if request.kind == InteractionKind.CLIENT_TOOL:
        return tool_call(call_id, tool_name_of(request), tool_input_of(request))
    if request.kind == InteractionKind.USER_APPROVAL:
        arguments = approval_arguments(call_id, tool_name_of(request), tool_input_of(request), session_id)
        return tool_call(request.id, APPROVAL_TOOL, arguments)
    return None


def executed_call(
    index: int, call_id: str, name: str | None, arguments: Any, output: Any, *, is_error: bool | None = None
) -> dict[str, Any]:
    """One entry of ``executed_tool_calls``: its ``index`` among them (so the SDKs' stream
    accumulators merge the entries like ``tool_calls``), the call, and its output text."""
    entry = {"index": index, **tool_call(call_id, name, arguments)}
    entry["output"] = encode_output(output)
    if is_error:
        entry["is_error"] = True
    return entry
