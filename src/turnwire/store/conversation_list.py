"""The conversations of a tenant as a list a chat sidebar shows: newest activity first, each with
its title, agent and last activity, one page per query, searchable.

A conversation is a live task. Its *activity* is its last stored message's server stamp (the task's
message clock), or its creation for a task without messages. Its *title* is the one given by
``label_task`` (a user's rename), else the first line of its first user text; its *agent* the one
given by ``label_task`` (``None`` when no client said). Both labels live in ``task_metadata`` under
``turnwire.title`` / ``turnwire.agent``: the task table has no column for them and needs none.

Pages are walked by keyset (activity, id), not offset, so a conversation that becomes active while
a client scrolls never makes another one appear twice or be skipped below it.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any, Final

import orjson
import sqlalchemy as sa

from turnwire.errors import InputError
from turnwire.store.clock import now_us, to_iso
from turnwire.store.engine import Database
from turnwire.store.errors import NotFoundError
from turnwire.store.filters import jsonb_of
from turnwire.store.schema import messages, tasks

T = tasks.c
M = messages.c
TITLE_KEY: Final = "turnwire.title"
AGENT_KEY: Final = "turnwire.agent"
MAX_TITLE_CHARS: Final = 200
FIRST_MESSAGES: Final = 4
"""How many of a conversation's first messages are looked at for its title (files may come first)."""

# A task's last activity: its message clock, or its creation while it has no message.
last_activity = sa.case((T.last_created_at > 0, T.last_created_at), else_=T.created_at)


@dataclass(frozen=True, slots=True)
class ConversationRow:
    id: str
    name: str | None
    title: str | None
    agent: str | None
    created_at: str | None
    last_activity_at: str | None


def without_labels(metadata: Any) -> dict[str, Any] | None:
    """A task's metadata as a wire shows it: the labels (``TITLE_KEY``, ``AGENT_KEY``) are the
    conversation list's, not the metadata a client set, and never come back in it."""
    if not isinstance(metadata, dict):
        return metadata
    if TITLE_KEY not in metadata and AGENT_KEY not in metadata:
        return metadata
    kept = {k: v for k, v in metadata.items() if k not in (TITLE_KEY, AGENT_KEY)}
    return kept or None


def title_of(text: str) -> str:
    """A title from a message: its first non-empty line, cut to ``MAX_TITLE_CHARS``."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= MAX_TITLE_CHARS else line[: MAX_TITLE_CHARS - 1] + "…"


def encode_position(activity: int, task_id: str) -> str:
    raw = orjson.dumps({"v": 1, "a": activity, "id": task_id})
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_position(cursor: str) -> tuple[int, str]:
    """The ``(activity, id)`` a cursor names; ``InputError`` naming ``query.cursor`` otherwise."""
    try:
        data = orjson.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
    except (binascii.Error, ValueError, orjson.JSONDecodeError):
        raise InputError("invalid cursor", loc=("query", "cursor")) from None
    if (
        not isinstance(data, dict)
        or data.get("v") != 1
        or not isinstance(data.get("a"), int)
        or not isinstance(data.get("id"), str)
    ):
        raise InputError("invalid cursor", loc=("query", "cursor"))
    return data["a"], data["id"]


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _first_user_text(contents: list[dict[str, Any]]) -> str | None:
    for content in contents:
        if content.get("type") == "text" and content.get("author") == "user":
            text = content.get("content")
            if isinstance(text, str) and text.strip():
                return title_of(text)
    return None


class ConversationQueries:
    """Mixed into ``SqlStore``: ``list_conversations`` and ``label_task``."""

    db: Database

    async def list_conversations(
        self,
        *,
        limit: int = 20,
        cursor: str | None = None,
        search: str | None = None,
        only: str | None = None,
        tenant: str | None = None,
    ) -> tuple[list[ConversationRow], str | None]:
        """One page of live conversations, most recent activity first, and the cursor of the next
        page (``None`` after the last). ``search`` keeps those whose title or first messages hold it
        (case-insensitive); ``only`` the one with that task id."""
        cond: list[Any] = [T.status != "DELETED"]
        if only is not None:
            cond.append(T.id == only)
        if tenant is not None:
            cond.append(T.tenant == tenant)
        if cursor:
            activity, after_id = decode_position(cursor)
            cond.append(sa.or_(last_activity < activity, sa.and_(last_activity == activity, T.id < after_id)))
        if search:
            pattern = _like(search)
            first = (
                sa.select(M.id)
                .where(M.task_id == T.id, M.seq < FIRST_MESSAGES, M.content.ilike(pattern, escape="\\"))
                .exists()
            )
            given = self._title_label()
            cond.append(sa.or_(given.ilike(pattern, escape="\\"), T.name.ilike(pattern, escape="\\"), first))
        query = (
            sa.select(T.id, T.name, T.task_metadata, T.created_at, last_activity)
            .where(*cond)
            .order_by(last_activity.desc(), T.id.desc())
            .limit(limit + 1)
        )
        async with self.db.read() as conn:
            rows = list(await conn.execute(query))
            more = len(rows) > limit
            rows = rows[:limit]
            firsts: dict[str, list[dict[str, Any]]] = {}
            if rows:
                found = await conn.execute(
                    sa.select(M.task_id, M.content)
                    .where(M.task_id.in_([r[0] for r in rows]), M.seq < FIRST_MESSAGES)
                    .order_by(M.task_id, M.seq)
                )
                for task_id, content in found:
                    firsts.setdefault(task_id, []).append(orjson.loads(content))
        out = []
        for task_id, name, metadata_text, created_at, activity in rows:
            metadata = orjson.loads(metadata_text) if metadata_text else {}
            labels = metadata if isinstance(metadata, dict) else {}
            title = labels.get(TITLE_KEY)
            agent = labels.get(AGENT_KEY)
            out.append(
                ConversationRow(
                    id=task_id,
                    name=name,
                    title=title if isinstance(title, str) else _first_user_text(firsts.get(task_id, [])),
                    agent=agent if isinstance(agent, str) else None,
                    created_at=to_iso(created_at),
                    last_activity_at=to_iso(activity),
                )
            )
        following = encode_position(rows[-1][4], rows[-1][0]) if more and rows else None
        return out, following

    def _title_label(self) -> sa.ColumnElement[Any]:
        """The title a user gave (``TITLE_KEY``'s value): what a search matches in the metadata,
        not its keys or the agent's name."""
        if self.db.dialect == "postgresql":
            return jsonb_of(T.task_metadata).op("->>", return_type=sa.Text)(TITLE_KEY)
        return sa.func.json_extract(T.task_metadata, f'$."{TITLE_KEY}"')

    async def label_task(
        self,
        task_id: str,
        *,
        title: str | None = None,
        agent: str | None = None,
        tenant: str | None = None,
    ) -> None:
        """Set a conversation's title and/or agent (``None`` leaves one as it is; ``""`` clears the
        title back to the first message's). ``NotFoundError`` for a missing, deleted or other
        tenant's task."""
        cond = [T.id == task_id, T.status != "DELETED"]
        if tenant is not None:
            cond.append(T.tenant == tenant)
        async with self.db.write() as conn:
            row = (await conn.execute(sa.select(T.task_metadata).where(*cond).with_for_update())).first()
            if row is None:
                raise NotFoundError(task_id)
            metadata = orjson.loads(row[0]) if row[0] else {}
            if not isinstance(metadata, dict):
                metadata = {}
            for key, value in ((TITLE_KEY, title), (AGENT_KEY, agent)):
                if value == "":
                    metadata.pop(key, None)
                elif value is not None:
                    metadata[key] = value
            await conn.execute(
                sa.update(tasks)
                .where(*cond)
                .values(
                    task_metadata=orjson.dumps(metadata).decode() if metadata else None, updated_at=now_us()
                )
            )
