"""`turnwire convert`: messages from one wire format to another."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, NoReturn

import orjson
import typer

from turnwire import json_input
from turnwire.cli import app
from turnwire.convert import convert as convert_messages
from turnwire.errors import InputError, UnknownFormatError
from turnwire.formats import names as format_names


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


_FORMATS = ", ".join(format_names())


@app.command()
def convert(
    source: Annotated[
        str, typer.Option("--from", metavar="FORMAT", help=f"Format of the input messages: {_FORMATS}.")
    ],
    target: Annotated[str, typer.Option("--to", metavar="FORMAT", help=f"Format to write: {_FORMATS}.")],
    file: Annotated[
        str | None,
        typer.Argument(metavar="FILE", hidden=True, show_default=False),
    ] = None,
    example: Annotated[
        str | None,
        typer.Option(
            "--example",
            metavar="NAME",
            help=f"Convert a bundled example instead of FILE: {', '.join(example_names())}.",
        ),
    ] = None,
) -> None:
    """Convert messages between wire formats (a JSON array in, pretty JSON out).

    FILE holds a JSON array of messages; stdin is read when it is absent or '-'.

    Bad JSON, a non-array, an unknown format or messages the source format rejects: one line on
    stderr saying where (e.g. messages[3].content) and exit code 2.

    \b
    Examples:
      turnwire convert --from vercel --to agenta chat.json
      turnwire convert --from agenta --to vercel --example agenta-conversation
    """
    raw = _read_input(None if file is None else Path(file), example)
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
