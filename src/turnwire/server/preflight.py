"""Checks ``turnwire serve`` runs before it prints its banner: every configuration mistake becomes
one ``ConfigError`` that names the option (or ``TURNWIRE_*`` variable) and the fix.

Nothing here is needed to serve; an app built with ``create_app`` in your own code skips it.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from turnwire.errors import TurnwireError
from turnwire.server.settings import ENV_PREFIX, Settings


class ConfigError(TurnwireError):
    """A setting that cannot work. ``str()`` is one line: ``<option>: <problem>; <fix>``."""

    def __init__(self, option: str, problem: str, fix: str | None = None) -> None:
        self.option = option
        self.problem = problem
        self.fix = fix
        super().__init__(f"{option}: {problem}" + (f"; {fix}" if fix else ""))


OPTION_OF_FIELD = {
    "a2a_push_allow": "--a2a-push-allow",
    "api_keys": "--api-key",
    "db_url": "--db",
    "keepalive_seconds": "--keepalive",
    "log_format": "--log-format",
    "multitask": "--multitask",
    "redis_url": "--redis",
    "vercel_client_version": "--vercel-client-version",
}
"""Settings field -> the ``serve`` option that sets it (the others come only from the environment)."""


def settings_from(environ: Mapping[str, str], overrides: Mapping[str, Any]) -> Settings:
    """``Settings.from_env(environ, **overrides)``; a value it refuses is a ``ConfigError`` naming
    the option when the value came from the command line, else the ``TURNWIRE_*`` variable."""
    keepalive = environ.get(ENV_PREFIX + "KEEPALIVE_SECONDS")
    if keepalive is not None and overrides.get("keepalive_seconds") is None:
        try:
            float(keepalive)
        except ValueError:  # Settings.from_env falls back to the default; a command line says so
            raise ConfigError(
                ENV_PREFIX + "KEEPALIVE_SECONDS", f"{keepalive!r} is not a number", "use seconds, 0 = off"
            ) from None
    try:
        return Settings.from_env(environ, **overrides)
    except ValidationError as exc:
        err = exc.errors()[0]
        field = str(err["loc"][0]) if err["loc"] else ""
        if overrides.get(field) is not None:
            source = OPTION_OF_FIELD.get(field, field)
        else:
            source = ENV_PREFIX + field.upper()
        value = err.get("input")
        msg = str(err["msg"]).removeprefix("Value error, ")
        raise ConfigError(source, f"{value!r} is not valid ({msg})", _fix_for(field)) from exc


def _fix_for(field: str) -> str:
    default = Settings.model_fields[field].default if field in Settings.model_fields else None
    if field == "vercel_client_version":
        return "use 5, 6, 7 or default"
    if field == "multitask":
        return "use reject, interrupt or enqueue"
    if isinstance(default, bool):
        return "use true or false"
    if isinstance(default, int):
        return f"use a whole number (default {default})"
    if isinstance(default, float):
        return f"use a number of seconds (default {default:g})"
    return "fix or unset it"


def check_port(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (the server then serves on it), or a ``ConfigError``."""
    if not 0 < port < 65536:
        raise ConfigError("--port", f"{port} is not a TCP port", "use a number from 1 to 65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise ConfigError(
            "--host", f"{host!r} is not an address here ({exc.strerror})", "try 127.0.0.1"
        ) from exc
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise ConfigError(
                "--port", f"{host}:{port} is already in use", "stop what listens there or pick another --port"
            ) from exc
        if exc.errno == errno.EACCES:
            raise ConfigError(
                "--port", f"no permission to listen on port {port}", "use a port above 1023"
            ) from exc
        raise ConfigError("--host", f"cannot listen on {host}:{port} ({exc.strerror})", None) from exc
    sock.set_inheritable(True)
    return sock


def check_db(url: str, option: str = "--db") -> None:
    """The store at ``url`` opens (its folder exists, the server answers, migrations apply)."""
    from turnwire.store import SqlStore
    from turnwire.store.engine import async_url

    try:
        driver_url = async_url(url)
    except ValueError as exc:
        scheme = url.split("://", 1)[0]
        raise ConfigError(
            option,
            f"{scheme}:// databases are not supported",
            "use sqlite:///path/to/file.db (or a plain path) or postgresql://user@host/db",
        ) from exc
    if driver_url.startswith("sqlite"):
        path = driver_url.split("://", 1)[1].removeprefix("/")
        if path and path != ":memory:" and not path.startswith("file:"):
            folder = Path(path).parent
            if not folder.is_dir():
                raise ConfigError(option, f"folder {folder} does not exist", "create it or pick another path")

    async def open_and_close() -> None:
        store = SqlStore(url)
        try:
            await asyncio.wait_for(store.open(), 15)
        finally:
            await store.close()

    try:
        asyncio.run(open_and_close())
    except Exception as exc:
        raise ConfigError(
            option,
            f"cannot open {display_url(url)} ({_first_line(exc)})",
            "check the URL and that the database runs",
        ) from exc


def check_default_db() -> None:
    """The default store (``$XDG_DATA_HOME/turnwire/turnwire.db``) can be created and opened."""
    from turnwire.server.settings import default_db_url

    try:
        url = default_db_url()
    except OSError as exc:
        raise ConfigError(
            "--db",
            f"cannot create the default store folder ({exc.strerror}: {exc.filename})",
            "set XDG_DATA_HOME to a writable folder or give --db",
        ) from exc
    check_db(url, "--db (default store)")


def check_redis(url: str, option: str = "--redis") -> None:
    """Redis at ``url`` answers PING within a few seconds."""
    import redis.asyncio as aioredis

    async def ping() -> None:
        client = aioredis.from_url(url, socket_connect_timeout=3, socket_timeout=3)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        asyncio.run(ping())
    except Exception as exc:
        raise ConfigError(
            option, f"cannot reach {display_url(url)} ({_first_line(exc)})", "start Redis or fix the URL"
        ) from exc


def display_url(url: str) -> str:
    """``url`` with any password replaced by ``***`` (safe to print)."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, _, host = rest.rpartition("@")
    if ":" in creds:
        creds = creds.split(":", 1)[0] + ":***"
    return f"{scheme}://{creds}@{host}"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
