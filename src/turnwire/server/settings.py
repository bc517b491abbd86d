"""Server settings: defaults that work on a fresh machine, overridable by ``TURNWIRE_*`` variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from turnwire.formats.vercel import ClientVersion

ENV_PREFIX = "TURNWIRE_"
DEFAULT_KEEPALIVE_SECONDS = 15.0


class Settings(BaseModel):
    """How the HTTP server behaves. Every field can be set by ``TURNWIRE_<FIELD NAME IN CAPS>``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_body_bytes: int = 10 * 1024 * 1024
    """Larger request bodies are refused with 413, checked on Content-Length and while reading."""
    max_json_depth: int = 64
    """Deeper JSON nesting (objects and arrays) is refused with 400."""
    max_header_bytes: int = Field(32 * 1024, gt=0)
    """A request head (URL and header fields) larger than this is refused with 431 and its
    connection closed, counted as it arrives (``turnwire serve``; see docs/server.md)."""
    max_headers: int = Field(100, gt=0)
    """A request with more header fields is refused with 431 (``turnwire serve``)."""
    header_timeout_seconds: float = Field(20.0, gt=0)
    """A request head must be complete this long after its first byte (after the connection
    opened, for its first request), else 408 and the connection is closed (``turnwire serve``)."""
    body_timeout_seconds: float = Field(30.0, gt=0)
    """A request body that gets no new bytes for this long is cut: 408, connection closed
    (``turnwire serve``)."""
    keepalive_seconds: float | None = DEFAULT_KEEPALIVE_SECONDS
    """Silence after which an SSE stream gets a ``: keepalive`` comment; ``None``/``<= 0`` = off."""
    db_url: str | None = None
    """Where conversations are stored (read by the store); ``None`` = the embedded default."""
    redis_url: str | None = None
    """Redis for live task updates shared by every worker (``redis://host:port/db``); ``None`` =
    in-process fan-out, which serves one process."""
    flush_seconds: float = Field(0.1, gt=0)
    """How often a streaming turn's messages are written to the store at most — and at least, while
    one streams: a killed process loses at most this much of a message."""
    on_disconnect: Literal["cancel", "continue"] = "cancel"
    """What a turn on the Agenta doors (SSE, NDJSON, batch) and ``message/send`` does when its
    client goes away: ``cancel`` it (what it said is stored) or let it ``continue``. A request may
    choose with ``x-ag-on-disconnect``. ``/chat`` turns always continue (a reload must not kill
    the answer); ``POST /chat/{id}/stop`` stops them."""
    multitask: Literal["reject", "interrupt", "enqueue"] = "reject"
    """What a turn does on a conversation already running one: ``reject`` it (409 naming the
    running turn), ``interrupt`` the running one (its partial reply stays stored) or ``enqueue``
    behind it. A request may choose with ``x-turnwire-multitask`` (see docs/server.md)."""
    detached_turn_seconds: float = 300.0
    """How long a turn that continues without its client runs on with no reader before it is
    stopped; a reader that reconnects (``GET /chat/{id}/stream``) resets the clock."""
    writer_lease_seconds: float = 15.0
    """How long a server process's writer lease lasts without renewal (renewed every third of it);
    a peer on another host repairs a dead process's streams after this."""
    approval_secret: str | None = None
    """Key that signs approval tokens; ``None`` = a random one kept in ``approval_secret_file``."""
    approval_secret_file: str | None = None
    """Where the generated secret is kept; ``None`` = ``$XDG_DATA_HOME/turnwire/secret``
    (``~/.local/share/turnwire/secret``). Every worker and restart must see the same secret."""
    session_pool_max: int = 64
    """Paused agents kept warm in memory at most; ``0`` = never warm (every resume replays cold)."""
    session_idle_ttl: float = 60.0
    """Seconds an agent parked for the next user message stays warm."""
    session_waiting_ttl: float = 600.0
    """Seconds an agent parked on an approval or a client tool stays warm."""

    api_keys: dict[str, str] = {}
    """API keys, ``TENANT:KEY`` entries separated by commas (``TENANT:sha256:<hex>`` names a key by
    its SHA-256); kept as ``{sha256 of the key: tenant}``. Empty = no authentication (one tenant)."""

    cors_origins: tuple[str, ...] = ()
    """Browser origins (``https://app.example.com``) whose pages may call the server cross-origin
    (CORS); comma-separated in ``TURNWIRE_CORS_ORIGINS``; ``*`` = any origin. Default: none."""

    a2a_push_allow: tuple[str, ...] = ()
    """URL patterns (``fnmatch``) A2A push notifications may be POSTed to; comma-separated in
    ``TURNWIRE_A2A_PUSH_ALLOW``. Default: none (push notifications off). See docs/a2a.md."""

    vercel_client_version: ClientVersion = ClientVersion.DEFAULT
    """The AI SDK major (``5``, ``6``, ``7`` or ``default``) Vercel streams target unless a request
    names its own in ``x-ai-sdk-version``; ``5`` sends approvals as data parts that ai 5 accepts."""

    otel: bool = False
    """Trace every turn with OpenTelemetry (the ``otel`` extra), exporting over OTLP as the
    ``OTEL_*`` variables say; an OTLP endpoint or ``OTEL_TRACES_EXPORTER`` in the environment
    turns it on too (see docs/observability.md)."""
    metrics: bool = False
    """Measure the turns and serve ``GET /metrics`` (Prometheus text; the ``otel`` extra)."""
    log_format: Literal["plain", "json"] = "plain"
    """``json``: one JSON object per log line, with request id, trace id, span id and session
    (``turnwire serve --log-format json``; see docs/observability.md)."""
    metrics_open: bool = False
    """``GET /metrics`` answers without an API key (for a scraper inside your network)."""

    @field_validator("vercel_client_version", mode="before")
    @classmethod
    def _client_version(cls, value: object) -> ClientVersion:
        if isinstance(value, ClientVersion):
            return value
        if not isinstance(value, str | int) or isinstance(value, bool):
            raise ValueError("expected 5, 6, 7 or default")
        return ClientVersion.parse(value)

    @field_validator("api_keys", mode="before")
    @classmethod
    def _api_keys(cls, value: object) -> dict[str, str]:
        from turnwire.server.http.auth import parse_api_keys

        return parse_api_keys(value)

    @field_validator("a2a_push_allow", mode="before")
    @classmethod
    def _push_allow(cls, value: object) -> object:
        if isinstance(value, str):
            value = tuple(part.strip() for part in value.split(",") if part.strip())
        for pattern in value if isinstance(value, tuple | list) else ():
            # A pattern is matched against whole webhook URLs: one without a scheme matches none.
            if not isinstance(pattern, str) or not pattern.startswith(("http://", "https://")):
                raise ValueError(f"{pattern!r} is not a URL pattern: start it with https:// or http://")
        return value

    @field_validator("cors_origins", mode="before")
    @classmethod
    def _origins(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part.strip().rstrip("/") for part in value.split(",") if part.strip())
        return value

    @property
    def keepalive_interval(self) -> float | None:
        """The keepalive interval in seconds, or ``None`` when keepalive is off."""
        k = self.keepalive_seconds
        return k if k is not None and k > 0 else None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, **overrides: object) -> Settings:
        """Settings from ``TURNWIRE_*`` variables, then ``overrides`` (which win).

        A keepalive value that is not a number falls back to the default (15 s) rather than
        failing the server start; other malformed values raise ``pydantic.ValidationError``.
        """
        env = os.environ if environ is None else environ
        values: dict[str, object] = {}
        for name in cls.model_fields:
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is None:
                continue
            if name == "keepalive_seconds":
                try:
                    values[name] = float(raw)
                except ValueError:
                    values[name] = DEFAULT_KEEPALIVE_SECONDS
            else:
                values[name] = raw
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)


def default_db_url() -> str:
    """``sqlite:///$XDG_DATA_HOME/turnwire/turnwire.db`` (``~/.local/share/turnwire/turnwire.db``);
    the folder is created if needed."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    folder = Path(base) / "turnwire"
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'turnwire.db'}"
