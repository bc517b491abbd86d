"""`turnwire chat` keeps each session's history on disk too, so a conversation with a server that
stores nothing (any Agenta invoke server) can be resumed: ``$XDG_DATA_HOME/turnwire/chats/<id>.json``."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from turnwire.formats import agenta, vercel
from turnwire.model import Message

_SAFE = re.compile(r"[^A-Za-z0-9._:-]")


def chats_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "turnwire" / "chats"


def _path(session_id: str) -> Path:
    return chats_dir() / f"{_SAFE.sub('_', session_id)}.json"


def save(session_id: str, url: str, fmt: str, messages: list[Message]) -> None:
    """Write the history (in ``fmt``'s wire shape) atomically; a failure to write is not fatal."""
    render = vercel.render_messages if fmt == "vercel" else agenta.render_messages
    path = _path(session_id)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps({"url": url, "format": fmt, "messages": render(messages)}, ensure_ascii=False)
        )
        tmp.replace(path)
    except OSError:
        pass


def load(session_id: str, fmt: str) -> list[Message]:
    """The saved history of ``session_id`` in ``fmt`` (``[]`` when there is none or it is unreadable)."""
    try:
        saved = json.loads(_path(session_id).read_text())
    except (OSError, ValueError):
        return []
    if not isinstance(saved, dict) or saved.get("format") != fmt:
        return []
    parse = vercel.parse_messages if fmt == "vercel" else agenta.parse_messages
    try:
        return parse(saved.get("messages") or [])
    except ValueError:
        return []


def saved_sessions(limit: int) -> list[tuple[str, str]]:
    """(session id, when it was saved) of the latest local copies, newest first."""
    from datetime import UTC, datetime

    try:
        files = sorted(chats_dir().glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []
    return [
        (path.stem, datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()) for path in files[:limit]
    ]
