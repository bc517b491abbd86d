"""What the store keeps beside a stored content, so other formats read it back exactly.

The store keeps Agentex contents, one per canonical block, each exactly as the Agentex wire has it.
A UIMessage reader also needs the id of the message a content belongs to (the client's own id, or
the stream's ``start.messageId``), the turn that wrote it (where the stream opened its steps), a
reasoning part's id, a data part's name, and per turn its usage and stop reason. They are the
message's *note* (``StoredMessage.note``, the ``messages.note`` column), never part of its content:

- ``message_id``: the message the content is part of;
- ``role``: the message's role when its content's author cannot say it (``system``, ``developer``:
  Agentex authors are only ``user`` and ``agent``);
- ``turn``: the trace id of the turn that wrote it (absent on the client's own messages);
- ``part_id``: a reasoning part's id; ``wrapped``: a data block stored as ``{name, value}``;
- ``transient``: a data block the stream marked transient (no client keeps it in a message);
- ``render``: a call's or result's ``render`` (the stream's ``data-render`` part after it);
- ``error_detail``: an error's ``detail`` (the stream's ``data-agent-error.errorDetail``);
- ``sources_before`` / ``sources_after``: the sources (citations) and custom events the stream
  sent right before / after the content, in stream order and their stored form (``sources``);
  before only on a turn's first content;
- ``agent``: the sub-agent invocation that wrote it (``turnwire.subagents``; AG-UI's
  ``subagentRunId``);
- ``usage``, ``stop_reason``: on the last content of a turn; ``state``: there too, the agent's
  state at the turn's end (AG-UI's connect replays it as ``STATE_SNAPSHOT``);
- ``rewind``: on a rewind marker of a release before branches (``store.branches``);
- ``response``: on the last content of a Responses turn, the response object it answered with
  (``server.doors.responses.state``).

Earlier releases kept the note inside the content, under ``"turnwire"``; migration step 6
(``store.note_migration``) moved it out.
"""

from __future__ import annotations

from typing import Final

FIELDS: Final = (
    "message_id",
    "role",
    "turn",
    "part_id",
    "wrapped",
    "transient",
    "render",
    "error_detail",
    "sources_before",
    "sources_after",
    "agent",
    "usage",
    "stop_reason",
    "state",
    "rewind",
    "response",
)
"""The keys a note may hold."""
