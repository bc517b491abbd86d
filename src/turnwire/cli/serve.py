"""`turnwire serve`: check the configuration, print where everything is, then serve until Ctrl-C."""

from __future__ import annotations

import os
import traceback
from typing import Annotated, NoReturn

import typer

from turnwire.cli import app
from turnwire.server.settings import DEFAULT_KEEPALIVE_SECONDS

_DEFAULT_STORE = "$XDG_DATA_HOME/turnwire/turnwire.db (~/.local/share/turnwire/turnwire.db)"


def _fail(message: str, exc: BaseException | None, debug: bool) -> NoReturn:
    if debug and exc is not None:
        traceback.print_exception(exc)
    hint = "" if debug else " (--debug shows the traceback)" if exc is not None and exc.__cause__ else ""
    typer.echo(f"turnwire serve: {message}{hint}", err=True)
    raise typer.Exit(2)


@app.command()
def serve(
    host: Annotated[str, typer.Option(metavar="ADDRESS", help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(metavar="PORT", help="TCP port, 1-65535.")] = 8000,
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            metavar="NAME=MODULE:ATTR",
            help="Serve an agent (repeatable), imported from --app-dir. 'demo' is built in.",
        ),
    ] = None,
    default_agent: Annotated[
        str | None,
        typer.Option(
            metavar="NAME",
            help="Agent behind POST /invoke and POST /chat [default: the first --model, else demo].",
        ),
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            metavar="openai:MODEL",
            help="Serve a model as an agent named after it (repeatable), on any OpenAI-compatible server "
            "[env vars: OPENAI_BASE_URL, OPENAI_API_KEY].",
        ),
    ] = None,
    openai_base_url: Annotated[
        str | None,
        typer.Option(metavar="URL", help="Chat Completions base URL for --model [env var: OPENAI_BASE_URL]."),
    ] = None,
    openai_api_key: Annotated[
        str | None, typer.Option(metavar="KEY", help="API key for --model [env var: OPENAI_API_KEY].")
    ] = None,
    app_dir: Annotated[
        str, typer.Option(metavar="DIR", help="Folder put first on the import path for --agent modules.")
    ] = ".",
    db: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help=f"Conversation store: sqlite:///file.db, a path, or postgresql://user@host/db "
            f"[env var: TURNWIRE_DB_URL; default: {_DEFAULT_STORE}]",
        ),
    ] = None,
    redis: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="Redis for live task updates shared by several workers, redis://host:6379/0 "
            "[env var: TURNWIRE_REDIS_URL; default: none, in-process]",
        ),
    ] = None,
    keepalive: Annotated[
        float | None,
        typer.Option(
            metavar="SECONDS",
            help="Stream silence before an SSE keepalive comment; 0 = off "
            f"[env var: TURNWIRE_KEEPALIVE_SECONDS; default: {DEFAULT_KEEPALIVE_SECONDS:g}]",
        ),
    ] = None,
    vercel_client_version: Annotated[
        str | None,
        typer.Option(
            "--vercel-client-version",
            metavar="VERSION",
            help="AI SDK major the Vercel streams target: 5, 6, 7 or default; a request's "
            "x-ai-sdk-version header wins [env var: TURNWIRE_VERCEL_CLIENT_VERSION; default: default]",
        ),
    ] = None,
    api_key: Annotated[
        list[str] | None,
        typer.Option(
            "--api-key",
            metavar="TENANT:KEY",
            help="Require API keys: TENANT:KEY or TENANT:sha256:<hex>, repeatable (see docs/security.md) "
            "[env var: TURNWIRE_API_KEYS; default: none, unauthenticated]",
        ),
    ] = None,
    multitask: Annotated[
        str | None,
        typer.Option(
            "--multitask",
            metavar="STRATEGY",
            help="A turn on a conversation already running one: reject (409), interrupt the running "
            "one, or enqueue behind it; a request's x-turnwire-multitask header wins "
            "[env var: TURNWIRE_MULTITASK; default: reject]",
        ),
    ] = None,
    otel: Annotated[
        bool,
        typer.Option(
            "--otel",
            help="Trace every turn with OpenTelemetry, exported over OTLP as the OTEL_* variables say "
            "(pip install 'turnwire[otel]'; see docs/observability.md) [env var: TURNWIRE_OTEL]",
        ),
    ] = False,
    metrics: Annotated[
        bool,
        typer.Option(
            "--metrics",
            help="Serve GET /metrics (Prometheus text, key-protected) [env var: TURNWIRE_METRICS]",
        ),
    ] = False,
    log_format: Annotated[
        str | None,
        typer.Option(
            "--log-format",
            metavar="FORMAT",
            help="plain, or json: one JSON object per line with request id, trace id and session "
            "[env var: TURNWIRE_LOG_FORMAT; default: plain]",
        ),
    ] = None,
    a2a_push_allow: Annotated[
        list[str] | None,
        typer.Option(
            "--a2a-push-allow",
            metavar="URL_PATTERN",
            help="Allow A2A push notifications to webhooks matching this pattern, e.g. "
            "'https://hooks.example.com/*' (repeatable; see docs/a2a.md) "
            "[env var: TURNWIRE_A2A_PUSH_ALLOW; default: none, push off]",
        ),
    ] = None,
    workers: Annotated[int, typer.Option(metavar="N", help="Worker processes sharing the port.")] = 1,
    reload: Annotated[
        bool, typer.Option("--reload", help="Restart when a .py file under --app-dir changes (development).")
    ] = False,
    log_level: Annotated[
        str, typer.Option(metavar="LEVEL", help="critical, error, warning, info or debug.")
    ] = "info",
    debug: Annotated[
        bool, typer.Option("--debug", help="Show the full traceback when the start fails.")
    ] = False,
) -> None:
    """Serve agents over HTTP until Ctrl-C (Agenta, Vercel, Agentex, history).

    Every other setting comes from TURNWIRE_* variables (see docs/server.md), e.g.
    TURNWIRE_MAX_BODY_BYTES, TURNWIRE_APPROVAL_SECRET. A configuration that cannot work stops the
    start with one line naming the option and exit code 2.

    \b
    Examples:
      turnwire serve
      turnwire serve --port 9000 --agent chat=my_app.agents:chat --default-agent chat
      OPENAI_API_KEY=sk-... turnwire serve --model openai:gpt-4o-mini
      turnwire serve --db postgresql://me@localhost/turnwire --redis redis://localhost:6379/0 --workers 4
    """
    from turnwire import __version__
    from turnwire.agents import AgentLoadError
    from turnwire.agents.model_spec import model_agent_name
    from turnwire.server import preflight
    from turnwire.server.banner import banner
    from turnwire.server.run import LOG_LEVELS, ServeOptions, add_app_dir, build_app
    from turnwire.server.run import serve as run_server

    try:
        keys = _api_keys(api_key)
        settings = preflight.settings_from(
            os.environ,
            {
                "db_url": db,
                "keepalive_seconds": keepalive,
                "vercel_client_version": vercel_client_version,
                "redis_url": redis,
                "api_keys": keys,
                "multitask": multitask,
                "otel": otel or None,
                "metrics": metrics or None,
                "log_format": log_format,
                "a2a_push_allow": tuple(a2a_push_allow) if a2a_push_allow else None,
            },
        )
        if log_level.lower() not in LOG_LEVELS:
            raise preflight.ConfigError(
                "--log-level", f"{log_level!r} is not a level", f"use {', '.join(LOG_LEVELS)}"
            )
        if workers < 1:
            raise preflight.ConfigError(
                "--workers", f"{workers} is not a number of processes", "use 1 or more"
            )
        if not 0 < port < 65536:
            raise preflight.ConfigError("--port", f"{port} is not a TCP port", "use a number from 1 to 65535")
        if not os.path.isdir(app_dir):
            raise preflight.ConfigError(
                "--app-dir", f"{app_dir} is not a folder", "give the folder of your package"
            )
        models = tuple(model or ())
        if default_agent is None:
            default_agent = model_agent_name(models[0].partition(":")[2].strip()) if models else "demo"
        options = ServeOptions(
            host=host,
            port=port,
            agent_specs=tuple(agent or ()),
            default_agent=default_agent,
            settings=settings,
            app_dir=app_dir,
            log_level=log_level.lower(),
            workers=workers,
            reload=reload,
            models=models,
            openai_base_url=openai_base_url,
            openai_api_key=openai_api_key,
        )
        add_app_dir(app_dir)
        fastapi_app = build_app(options)
        if settings.db_url:
            preflight.check_db(settings.db_url, "--db" if db else "TURNWIRE_DB_URL")
        else:
            preflight.check_default_db()
        if settings.redis_url:
            preflight.check_redis(settings.redis_url, "--redis" if redis else "TURNWIRE_REDIS_URL")
        sock = preflight.check_port(host, port)
    except (preflight.ConfigError, AgentLoadError) as exc:
        _fail(str(exc), exc, debug)
    typer.echo(
        banner(
            host=host,
            port=port,
            agents=fastapi_app.state.turnwire.agents,
            default_agent=default_agent,
            settings=settings,
            app=fastapi_app,
            workers=workers,
            reload=reload,
            version=__version__,
        )
    )
    _say_who_may_call(host, sorted(set(settings.api_keys.values())))
    single = workers == 1 and not reload
    run_server(options, sock, app=fastapi_app if single else None)


def _api_keys(options: list[str] | None) -> dict[str, str] | None:
    """The keys of ``--api-key`` (else ``TURNWIRE_API_KEYS``) checked here, so a refusal names the
    entry and never echoes a key; ``None`` when the options give none."""
    from turnwire.server import preflight
    from turnwire.server.http.auth import parse_api_keys

    source, raw = (
        ("--api-key", options) if options else ("TURNWIRE_API_KEYS", os.environ.get("TURNWIRE_API_KEYS"))
    )
    if not raw:
        return None
    try:
        return parse_api_keys(raw)
    except ValueError as exc:
        raise preflight.ConfigError(source, str(exc), "see turnwire new-api-key") from None


def _say_who_may_call(host: str, tenants: list[str]) -> None:
    """Without keys on an interface others can reach: a warning no one can miss (the banner's
    ``auth`` line says the rest)."""
    from turnwire.server.run import is_loopback

    if tenants or is_loopback(host):
        return
    bar = "!" * 78
    typer.echo(
        f"{bar}\nWARNING: listening on {host} WITHOUT API KEYS: anyone who can reach this port can read\n"
        "every conversation, run the agents and approve their tools. Pass --api-key TENANT:KEY\n"
        f"(or TURNWIRE_API_KEYS) or listen on 127.0.0.1.\n{bar}",
        err=True,
    )


@app.command("new-api-key")
def new_api_key(
    tenant: Annotated[str, typer.Argument(help="The tenant the key speaks for (A-Z a-z 0-9 . _ -).")],
) -> None:
    """Print a fresh random API key for TENANT, as an --api-key value and by its SHA-256."""
    import secrets

    from turnwire.server.http.auth import TENANT_PATTERN, key_digest

    if not TENANT_PATTERN.fullmatch(tenant):
        typer.echo("turnwire new-api-key: a tenant is 1-64 of A-Z a-z 0-9 . _ -", err=True)
        raise typer.Exit(2)
    key = "tw_" + secrets.token_urlsafe(32)
    typer.echo(f"{tenant}:{key}")
    typer.echo(f"{tenant}:sha256:{key_digest(key)}")
