"""The server's side of approvals and warm sessions: one pool and one signer per app."""

from __future__ import annotations

from collections.abc import Sequence

from turnwire.errors import InputError
from turnwire.model import Message
from turnwire.runtime.approvals import ApprovalRejected, ApprovalSigner, load_secret
from turnwire.runtime.sessions import SessionPool, WarmSessions
from turnwire.server.errors import RequestError
from turnwire.server.settings import Settings


def build_sessions(settings: Settings) -> WarmSessions:
    """A warm-session runner keyed by the configured (or stored, or freshly generated) secret."""
    signer = ApprovalSigner(load_secret(settings.approval_secret, settings.approval_secret_file))
    pool = SessionPool(
        max_entries=settings.session_pool_max,
        idle_ttl=settings.session_idle_ttl,
        waiting_ttl=settings.session_waiting_ttl,
    )
    return WarmSessions(signer, pool)


def check_approvals(
    sessions: WarmSessions, messages: Sequence[Message], session_id: str, loc: tuple[str, ...]
) -> None:
    """Refuse the request (409/422 naming the message and the tool call) when a decision in the
    history was not issued by this server for this session, call, tool and input."""
    try:
        sessions.signer.check_decisions(messages, session_id)
    except ApprovalRejected as exc:
        error = InputError(exc.msg, loc=(*loc, exc.index), type=exc.reason)
        raise RequestError(exc.status, [error]) from None
