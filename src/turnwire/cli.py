"""The ``turnwire`` command line."""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer

from turnwire import json_input
from turnwire.convert import convert as convert_messages
from turnwire.errors import InputError, UnknownFormatError

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)


@app.callback()
def main() -> None:
    """turnwire: one agent, every agent-chat wire format."""


def _fail(message: str) -> NoReturn:
    """One line on stderr and exit code 2: the caller's input was wrong, not turnwire."""
    typer.echo(f"turnwire convert: {message}", err=True)
    raise typer.Exit(2)


def example_names() -> list[str]:
    """Names of the bundled example files (without ``.json``)."""
    folder = resources.files("turnwire.examples")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".json"))


def _read_input(file: Path | None, example: str | None) -> bytes:
    if example is not None:
        if file is not None:
            _fail("give either FILE or --example, not both")
        if example not in example_names():
            _fail(f"unknown example {example!r}; bundled examples: {', '.join(example_names())}")
        return resources.files("turnwire.examples").joinpath(f"{example}.json").read_bytes()
    if file is None or str(file) == "-":
        return sys.stdin.buffer.read()
    try:
        return file.read_bytes()
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}")


@app.command()
def convert(
    source: Annotated[str, typer.Option("--from", help="Format of the input messages, e.g. agenta.")],
    target: Annotated[str, typer.Option("--to", help="Format to write, e.g. agenta.")],
    file: Annotated[
        Path | None, typer.Argument(help="JSON array of messages; stdin when absent or '-'.")
    ] = None,
    example: Annotated[
        str | None, typer.Option("--example", help="Convert a bundled example instead of FILE.")
    ] = None,
) -> None:
    """Convert a JSON array of messages from one wire format to another (pretty JSON on stdout).

    Exit code 2 with a one-line message on stderr for bad JSON, a non-array, an unknown format or
    messages the source format rejects (the message says where, e.g. messages[3].content).
    """
    raw = _read_input(file, example)
    try:
        messages: Any = json_input.loads(raw, loc=())
    except InputError as exc:
        _fail(f"input: {exc.msg}")
    if not isinstance(messages, list):
        _fail("input must be a JSON array of messages")
    try:
        out = convert_messages(messages, source=source, target=target)
    except (InputError, UnknownFormatError) as exc:
        _fail(str(exc))
    sys.stdout.buffer.write(orjson.dumps(out, option=orjson.OPT_INDENT_2) + b"\n")
    sys.stdout.buffer.flush()


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", help="Serve an agent: NAME=module:attr (repeatable). 'demo' is built in."),
    ] = None,
    default_agent: Annotated[str, typer.Option(help="Agent behind POST /invoke.")] = "demo",
    db: Annotated[str | None, typer.Option(help="Database URL for the conversation store.")] = None,
    keepalive: Annotated[
        float | None, typer.Option(help="Seconds of stream silence before an SSE keepalive; 0 = off.")
    ] = None,
    vercel_client_version: Annotated[
        str | None,
        typer.Option(
            "--vercel-client-version",
            help="AI SDK major Vercel streams target: 5, 6, 7 or default; x-ai-sdk-version overrides it.",
        ),
    ] = None,
    redis: Annotated[
        str | None,
        typer.Option(
            "--redis", help="Redis URL for live task updates shared by several workers (default: in-process)."
        ),
    ] = None,
) -> None:
    """Serve the invoke API (and everything else turnwire serves) over HTTP until Ctrl-C."""
    from turnwire.agents import AgentLoadError
    from turnwire.server.run import parse_agent_specs
    from turnwire.server.run import serve as run_server

    specs = agent or []
    try:
        names = sorted(parse_agent_specs(specs))
    except AgentLoadError as exc:
        typer.echo(f"turnwire serve: {exc}", err=True)
        raise typer.Exit(2) from None
    if vercel_client_version is not None:
        from turnwire.formats.vercel import ClientVersion

        try:
            ClientVersion.parse(vercel_client_version)
        except ValueError as exc:
            typer.echo(f"turnwire serve: --vercel-client-version: {exc}", err=True)
            raise typer.Exit(2) from None
        # Settings are read from TURNWIRE_* at start-up; the option wins over an inherited value.
        os.environ["TURNWIRE_VERCEL_CLIENT_VERSION"] = vercel_client_version
    if redis is not None:
        os.environ["TURNWIRE_REDIS_URL"] = redis  # read by Settings.from_env, like the option above
    if default_agent not in names:
        typer.echo(
            f"turnwire serve: --default-agent {default_agent!r} is not one of: {', '.join(names)}", err=True
        )
        raise typer.Exit(2)
    typer.echo(
        f"turnwire serving http://{host}:{port}  (agents: {', '.join(names)}; default: {default_agent})"
    )
    run_server(
        host=host, port=port, agent_specs=specs, default_agent=default_agent, db_url=db, keepalive=keepalive
    )
