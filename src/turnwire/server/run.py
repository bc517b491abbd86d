"""Starting the server from the command line (``turnwire serve``)."""

from __future__ import annotations

import functools
import gc
import ipaddress
import logging
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from turnwire.agents import AgentLoadError, builtin_agents, load_agent
from turnwire.agents.model_spec import model_agent
from turnwire.runtime import Agent
from turnwire.server.settings import Settings

LOG_LEVELS = ("critical", "error", "warning", "info", "debug")


def parse_agent_specs(
    specs: Sequence[str],
    models: Sequence[str] = (),
    *,
    openai_base_url: str | None = None,
    openai_api_key: str | None = None,
) -> dict[str, Agent]:
    """The built-in agents, one per ``NAME=module:attr`` spec (a later spec wins a name), then one per
    ``--model PROVIDER:MODEL`` named after the model (``model_spec.model_agent_name``).

    Raises ``AgentLoadError`` naming the spec when it is malformed or its agent cannot be loaded.
    """
    agents = builtin_agents()
    for spec in specs:
        name, eq, target = spec.partition("=")
        name = name.strip()
        if not eq or not name or not target.strip():
            raise AgentLoadError(f"--agent {spec!r}: expected NAME=module:attr, e.g. chat=my_app.agents:chat")
        try:
            agents[name] = load_agent(target)
        except AgentLoadError as exc:
            raise AgentLoadError(f"--agent {name}: {exc}") from exc
    for spec in models:
        name, agent = model_agent(spec, base_url=openai_base_url, api_key=openai_api_key)
        agents[name] = agent
    return agents


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an interface to listen on) is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class ServeOptions:
    """Everything ``turnwire serve`` was told; picklable, so worker processes rebuild the same app."""

    host: str = "127.0.0.1"
    port: int = 8000
    agent_specs: tuple[str, ...] = ()
    default_agent: str = "demo"
    settings: Settings = field(default_factory=Settings)
    app_dir: str | None = "."
    log_level: str = "info"
    workers: int = 1
    reload: bool = False
    models: tuple[str, ...] = ()
    openai_base_url: str | None = None
    openai_api_key: str | None = None


def add_app_dir(app_dir: str | None) -> None:
    """Put ``app_dir`` (default: the current directory) first on ``sys.path``, as uvicorn's
    ``--app-dir`` does, so ``--agent x=my_app.agents:x`` imports from where the command runs."""
    if app_dir is None:
        return
    path = os.path.abspath(app_dir)
    if path not in sys.path:
        sys.path.insert(0, path)


def build_app(options: ServeOptions) -> FastAPI:
    """The app ``options`` describe (called once per worker process)."""
    from turnwire.server.app import create_app

    add_app_dir(options.app_dir)
    if options.settings.log_format == "json":
        from turnwire.observability.json_logs import install_json_logs

        install_json_logs(options.log_level)
    else:
        _log_like_uvicorn(options.log_level)
    agents = parse_agent_specs(
        options.agent_specs,
        options.models,
        openai_base_url=options.openai_base_url,
        openai_api_key=options.openai_api_key,
    )
    if options.default_agent not in agents:
        known = ", ".join(sorted(agents))
        raise AgentLoadError(
            f"--default-agent {options.default_agent!r} is not an agent; known agents: {known}"
        )
    app = create_app(agents, default_agent=options.default_agent, settings=options.settings)
    observe = app.state.turnwire.observe
    if observe is not None and observe.provider is not None:
        from turnwire.observability.tracing import install_global

        install_global(observe.provider)  # the process's provider: other instrumentation joins the traces
    # What is imported and built by now lives as long as the process: keep it out of every later
    # collection (a full one walked it all, ≈ 50 ms every few dozen 1,000-message batch requests).
    gc.collect()
    gc.freeze()
    return app


def uvicorn_config(options: ServeOptions, app: FastAPI | None = None) -> Any:
    """The ``uvicorn.Config`` ``serve`` runs: ``app``, or one built per process from ``options``,
    served with bounded request heads and slow clients timed out."""
    import uvicorn

    config = uvicorn.Config(
        app if app is not None else functools.partial(build_app, options),
        factory=app is None,
        host=options.host,
        port=options.port,
        log_level=options.log_level,
        workers=options.workers,
        reload=options.reload,
        **_connection_options(options.settings),  # type: ignore[arg-type]
        **_log_config(options.settings),  # type: ignore[arg-type]
    )
    _attach_limits(config, options.settings)
    if options.reload:  # uvicorn fills these only for an import-string app; ours is a factory
        config.reload_dirs = [Path(options.app_dir or ".").resolve()]
        config.reload_includes = ["*.py"]
    return config


def _log_like_uvicorn(level: str) -> None:
    """turnwire's log lines at ``level``, on stderr, formatted like uvicorn's (``WARNING:  …``);
    without a handler only warnings would show, bare, and ``--log-level debug`` nothing more."""
    logger = logging.getLogger("turnwire")
    logger.setLevel(level.upper())
    if logger.handlers:
        return
    from uvicorn.logging import DefaultFormatter

    handler = logging.StreamHandler()
    handler.setFormatter(DefaultFormatter("%(levelprefix)s %(message)s"))
    logger.addHandler(handler)


def serve(options: ServeOptions, sock: object | None = None, *, app: FastAPI | None = None) -> None:
    """Run the app under uvicorn until interrupted (blocking): one process, ``workers`` processes
    sharing one socket, or one process restarted on code changes (``reload``).

    ``sock``: an already bound listening socket (``preflight.check_port``); else uvicorn binds.
    ``app``: the app to serve in a single process (else each process builds its own).
    """
    import socket

    import uvicorn
    from uvicorn.supervisors import ChangeReload, Multiprocess

    config = uvicorn_config(options, app)
    server = uvicorn.Server(config)
    listening = sock if isinstance(sock, socket.socket) else config.bind_socket()
    if options.reload:
        ChangeReload(config, target=server.run, sockets=[listening]).run()
    elif options.workers > 1:
        Multiprocess(config, sockets=[listening]).run()
    else:
        server.run(sockets=[listening])
        if not server.started:
            raise SystemExit(1)


def _connection_options(settings: Settings) -> dict[str, object]:
    """uvicorn options serving HTTP/1.1 with bounded request heads and slow clients timed out
    (``server.http.connections``); without httptools, uvicorn's h11 with its head-size bound."""
    try:
        from turnwire.server.http.connections import BoundedHttpToolsProtocol
    except ImportError:  # no httptools (e.g. PyPy): h11 refuses a larger head with 400, no timeouts
        return {"http": "h11", "h11_max_incomplete_event_size": settings.max_header_bytes}
    return {"http": BoundedHttpToolsProtocol}


def _log_config(settings: Settings) -> dict[str, object]:
    """uvicorn's own lines as JSON too with ``--log-format json``; else its default config."""
    if settings.log_format != "json":
        return {}
    from turnwire.observability.json_logs import uvicorn_json_log_config

    return {"log_config": uvicorn_json_log_config()}


def _attach_limits(config: object, settings: Settings) -> None:
    """The limits ``BoundedHttpToolsProtocol`` reads, on the config (pickled into workers)."""
    try:
        from turnwire.server.http.connections import CONFIG_ATTRIBUTE, ConnectionLimits
    except ImportError:  # served by h11 (``_connection_options``)
        return
    limits = ConnectionLimits(
        max_header_bytes=settings.max_header_bytes,
        max_headers=settings.max_headers,
        header_timeout_seconds=settings.header_timeout_seconds,
        body_timeout_seconds=settings.body_timeout_seconds,
    )
    setattr(config, CONFIG_ATTRIBUTE, limits)
