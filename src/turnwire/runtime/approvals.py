"""Signed approvals: the approval id a client echoes back is an HMAC the server can check.

A token binds one approval to the session, the tool call id, the tool name and a digest of the
input, keyed by a server secret. The server keeps no record of what it issued: a decision whose
token verifies against the history's own tool call is one the server issued for exactly that call,
so the check works the same on a warm resume, a cold replay and after a restart (same secret).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Final

import orjson

from turnwire.errors import TurnwireError
from turnwire.interactions import tool_call_id_of, tool_input_of, tool_name_of
from turnwire.model import InteractionKind, InteractionRequest, Message
from turnwire.runtime.transcript import Decision, decisions

TOKEN_PREFIX: Final = "ap_"
SECRET_FILE_ENV: Final = "TURNWIRE_APPROVAL_SECRET_FILE"
_DOMAIN: Final = b"turnwire-approval-v1"
_SECRET_BYTES: Final = 32


class ApprovalRejected(TurnwireError):
    """A decision in the history that the server did not issue, or that no longer matches its call.

    ``reason`` is a slug (``approval_token_missing``, ``approval_call_unknown``,
    ``approval_token_invalid``); ``index`` is the position of the message holding the decision.
    """

    def __init__(self, tool_call_id: str, reason: str, msg: str, index: int) -> None:
        self.tool_call_id = tool_call_id
        self.reason = reason
        self.msg = msg
        self.index = index
        super().__init__(msg)

    @property
    def status(self) -> int:
        """422 when the decision is incomplete, 409 when it contradicts what the server issued."""
        return 422 if self.reason == "approval_token_missing" else 409


def input_digest(value: Any) -> str:
    """SHA-256 of the input as canonical JSON (keys sorted), so key order never matters."""
    raw = orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str)
    return hashlib.sha256(raw).hexdigest()


class ApprovalSigner:
    """Issues and checks approval tokens ``ap_<base64url HMAC-SHA256>`` under one secret."""

    __slots__ = ("_key",)

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("the approval secret must be at least 16 bytes")
        self._key = secret

    def token(self, session_id: str, tool_call_id: str, tool_name: str | None, tool_input: Any) -> str:
        """The token for approving ``tool_call_id`` (``tool_name`` with ``tool_input``) in ``session_id``."""
        # A JSON array keeps the fields apart: no separator inside a value can shift a boundary.
        message = orjson.dumps([session_id, tool_call_id, tool_name, input_digest(tool_input)])
        mac = hmac.new(self._key, _DOMAIN + b"\0" + message, hashlib.sha256).digest()
        return TOKEN_PREFIX + base64.urlsafe_b64encode(mac).rstrip(b"=").decode()

    def verify(
        self, token: str, session_id: str, tool_call_id: str, tool_name: str | None, tool_input: Any
    ) -> bool:
        """Whether ``token`` was issued for exactly this session, call, tool and input."""
        expected = self.token(session_id, tool_call_id, tool_name, tool_input)
        return hmac.compare_digest(expected.encode(), token.encode("utf-8", "replace"))

    def sign_request(self, request: InteractionRequest, session_id: str) -> InteractionRequest:
        """``request`` with its id replaced by a token, when it asks to approve a named tool call.

        Other requests (user input, client tools, approvals naming no call) are returned as they are.
        """
        if request.kind != InteractionKind.USER_APPROVAL:
            return request
        call_id = tool_call_id_of(request)
        if call_id is None:
            return request
        token = self.token(session_id, call_id, tool_name_of(request), tool_input_of(request))
        return replace(request, id=token)

    def check_decisions(self, messages: Sequence[Message], session_id: str) -> dict[str, Decision]:
        """The history's decisions, each checked against its tool call; raises ``ApprovalRejected``.

        Denials are checked too: a history carrying a decision the server never issued has been
        tampered with, and answering it either way would act on a call nobody was asked about.
        """
        found = decisions(messages)
        for call_id, decision in found.items():
            if decision.interaction_token is None:
                raise ApprovalRejected(
                    call_id,
                    "approval_token_missing",
                    f"the decision for tool call {call_id!r} has no interactionToken (the approval id)",
                    decision.index,
                )
            if decision.tool_name is None:
                raise ApprovalRejected(
                    call_id,
                    "approval_call_unknown",
                    f"the history holds no tool call {call_id!r} for this decision; "
                    "replay the paused assistant message with the decision",
                    decision.index,
                )
            if not self.verify(
                decision.interaction_token, session_id, call_id, decision.tool_name, decision.input
            ):
                raise ApprovalRejected(
                    call_id,
                    "approval_token_invalid",
                    f"the approval token for tool call {call_id!r} was not issued for this session, "
                    "tool and input (forged, altered, or from another conversation)",
                    decision.index,
                )
        return found


def default_secret_path() -> Path:
    """``$TURNWIRE_APPROVAL_SECRET_FILE``, else ``$XDG_DATA_HOME/turnwire/secret``
    (``~/.local/share/turnwire/secret``)."""
    explicit = os.environ.get(SECRET_FILE_ENV)
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "turnwire" / "secret"


def load_secret(secret: str | None = None, path: str | Path | None = None) -> bytes:
    """The approval secret: ``secret`` if given, else the one stored at ``path``, created on first use.

    The file is created exclusively with mode 0600 holding 32 random bytes (hex), so several
    workers starting together agree on one secret; an existing file is read, never replaced.
    """
    if secret:
        return secret.encode()
    file = Path(path) if path is not None else default_secret_path()
    try:
        return _read(file)
    except FileNotFoundError:
        pass
    file.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another worker won the race: use its secret
        return _read(file)
    with os.fdopen(fd, "w") as out:
        out.write(secrets.token_hex(_SECRET_BYTES) + "\n")
    return _read(file)


def _read(file: Path) -> bytes:
    value = file.read_text().strip()
    if not value:
        raise ValueError(f"the approval secret file {file} is empty; delete it to have one generated")
    return value.encode()
