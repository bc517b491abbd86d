"""Migration step 6's data: stored contents lose the notes they carried, messages learn their parent.

Up to step 5 the store kept its notes about a message (message id, turn, usage, ...) inside the
content, under the key ``"turnwire"``, and a rewind was a marker content in the log
(``{"type": "data", "data": {"type": "turnwire.rewind", "keep": N}}``: from here on the
conversation is the first N messages before the marker, then what follows it). This step moves each
note to the ``note`` column, leaving the content exactly the wire's, and gives every message the
parent its branch implies, replaying the rewinds in log order: so the branch that ends at a task's
last message is the conversation the previous release read. A marker stays in the log, hung on the
message it rewound to and noted ``{"rewind": N}`` (no branch shows it).

The names here are the released ones, spelled out: this step must keep doing what it did.
"""

from __future__ import annotations

from typing import Any, Final

import orjson
import sqlalchemy as sa
from sqlalchemy.ext.asyncio import AsyncConnection

_OLD_KEY: Final = "turnwire"
_OLD_REWIND: Final = "turnwire.rewind"
_CHUNK: Final = 1000


def _rewind_keep(content: dict[str, Any]) -> int | None:
    """``keep`` of a legacy rewind marker (clamped as the previous release read it), else ``None``."""
    data = content.get("data")
    if content.get("type") != "data" or not isinstance(data, dict) or data.get("type") != _OLD_REWIND:
        return None
    keep = data.get("keep")
    return keep if isinstance(keep, int) and keep >= 0 else -1


def convert(rows: list[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """Rows (id, task_id, content JSON) in log order -> the updates: ``{id, c, n, p}`` (content,
    note JSON or ``None``, parent id or ``None``) for every row that changes."""
    out: list[dict[str, Any]] = []
    task: str | None = None
    path: list[str] = []  # the task's conversation so far (ids), rewinds applied
    for mid, task_id, text in rows:
        if task_id != task:
            task, path = task_id, []
        content = orjson.loads(text)
        note: dict[str, Any] = {}
        moved = isinstance(content, dict) and _OLD_KEY in content
        if moved:
            kept = content.pop(_OLD_KEY)
            note = dict(kept) if isinstance(kept, dict) else {}
            text = orjson.dumps(content).decode()
        keep = _rewind_keep(content) if isinstance(content, dict) else None
        if keep is not None:
            # The previous release cut the conversation to ``keep`` messages (all of it if invalid).
            path = path[:keep] if keep >= 0 else path
            note["rewind"] = keep
            parent = path[-1] if path else None
        else:
            parent = path[-1] if path else None
            path.append(mid)
        if moved or note or parent is not None:
            out.append(
                {"id": mid, "c": text, "n": orjson.dumps(note).decode() if note else None, "p": parent}
            )
    return out


async def move_notes_and_link_parents(conn: AsyncConnection) -> None:
    rows = [
        (r[0], r[1], r[2])
        for r in await conn.execute(
            sa.text("SELECT id, task_id, content FROM messages ORDER BY task_id, created_at, seq")
        )
    ]
    updates = convert(rows)
    statement = sa.text("UPDATE messages SET content = :c, note = :n, parent_id = :p WHERE id = :id")
    for start in range(0, len(updates), _CHUNK):
        await conn.execute(statement, updates[start : start + _CHUNK])
