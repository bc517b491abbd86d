"""The turnwire command line: serve, chat and convert."""

from __future__ import annotations

from typing import Annotated

import typer

from turnwire import __version__

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,  # plain click help: no type tags, no box drawing
    pretty_exceptions_enable=False,
    help="turnwire: one agent, every agent-chat wire format, one store.",
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"turnwire {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """turnwire: one agent, every agent-chat wire format, one store.

    Start a server with `turnwire serve`, talk to it with `turnwire chat`.
    """


from turnwire.cli import chat as _chat  # noqa: E402  (registers the command on app)
from turnwire.cli import convert as _convert  # noqa: E402
from turnwire.cli import serve as _serve  # noqa: E402

__all__ = ["app", "main"]
del _chat, _convert, _serve
