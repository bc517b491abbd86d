"""API keys: which tenant a request speaks for.

Keys are configured in ``Settings.api_keys`` (``TURNWIRE_API_KEYS`` / ``turnwire serve --api-key``)
as ``TENANT:KEY`` entries; ``TENANT:sha256:<hex>`` gives a key by its SHA-256 instead, so the key
itself need not sit in the server's environment. Only digests are kept in memory.

A request names its key as ``Authorization: Bearer <key>`` (what ``agentex-client`` sends when
given an ``api_key``). With no keys configured every request is the default tenant ``""``.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final

from fastapi import HTTPException
from starlette.requests import Request

TENANT_PATTERN: Final = re.compile(r"[A-Za-z0-9._-]{1,64}")
MIN_KEY_LENGTH: Final = 16
_DIGEST: Final = re.compile(r"sha256:([0-9a-fA-F]{64})")
_LOC: Final = ["header", "authorization"]

log = logging.getLogger("turnwire.server.http.auth")


def key_digest(key: str) -> str:
    """SHA-256 hex of a key: what the server keeps and compares."""
    return hashlib.sha256(key.encode()).hexdigest()


def parse_api_keys(value: Any) -> dict[str, str]:
    """``"t1:key1,t2:key2"`` (or a list of ``TENANT:KEY`` strings, or a ``{digest: tenant}`` map
    already parsed) -> ``{sha256 hex of the key: tenant}``. ``ValueError`` naming the bad entry."""
    if isinstance(value, Mapping):
        entries: Iterable[Any] = [f"{tenant}:sha256:{digest}" for digest, tenant in value.items()]
    elif isinstance(value, str):
        entries = [e for e in (part.strip() for part in value.split(",")) if e]
    elif isinstance(value, list | tuple):
        entries = value
    else:
        raise ValueError("expected TENANT:KEY entries separated by commas")
    out: dict[str, str] = {}
    for index, entry in enumerate(entries):
        if not isinstance(entry, str):
            raise ValueError(f"entry {index}: expected a TENANT:KEY string")
        tenant, sep, key = entry.strip().partition(":")
        if not sep or not TENANT_PATTERN.fullmatch(tenant):
            raise ValueError(f"entry {index}: expected TENANT:KEY, a tenant of 1-64 of A-Z a-z 0-9 . _ -")
        digest = _DIGEST.fullmatch(key)
        if digest is not None:
            out[digest.group(1).lower()] = tenant
        elif len(key) < MIN_KEY_LENGTH:
            raise ValueError(
                f"entry {index} (tenant {tenant!r}): a key must be at least {MIN_KEY_LENGTH} characters"
            )
        else:
            out[key_digest(key)] = tenant
    return out


class Unauthorized(HTTPException):
    """401: no key, or one the server does not know, with ``WWW-Authenticate: Bearer``. An
    ``HTTPException`` for every route (and for apps without turnwire's error handlers); ``status``,
    ``message`` and ``data`` are what a door with its own error shape renders (Agentex)."""

    def __init__(self, msg: str) -> None:
        detail = [{"loc": _LOC, "msg": msg, "type": "unauthorized"}]
        super().__init__(401, detail, {"www-authenticate": "Bearer"})
        self.status, self.message, self.data = 401, msg, detail


def request_tenant(keys: Mapping[str, str], request: Request) -> str:
    """The tenant of the request's key; ``""`` when ``keys`` is empty; ``Unauthorized`` otherwise."""
    if not keys:
        return ""
    header = request.headers.get("authorization")
    if header is None:
        raise Unauthorized("an API key is required: Authorization: Bearer <key>")
    scheme, _, key = header.strip().partition(" ")
    key = key.strip()
    if scheme.lower() != "bearer" or not key:
        raise Unauthorized("expected Authorization: Bearer <key>")
    # Looked up by digest: how long the lookup takes says nothing about the key itself.
    tenant = keys.get(key_digest(key))
    if tenant is None:
        # Never the key: a digest prefix is enough to tell repeated attempts apart.
        log.warning("refused an unknown API key (sha256 %s…) from %s", key_digest(key)[:12], _client(request))
        raise Unauthorized("unknown API key")
    return tenant


def _client(request: Request) -> str:
    client = request.client
    return client.host if client is not None else "an unknown client"
