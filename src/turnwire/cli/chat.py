"""`turnwire chat`: talk to a turnwire (or any Agenta invoke protocol) server from the terminal."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.text import Text

from turnwire.cli import app, chat_history
from turnwire.cli.chat_commands import ChatState, Refused, discover, new_session_id
from turnwire.cli.chat_view import TurnView, as_text
from turnwire.cli.interrupts import held_interrupts
from turnwire.client import DEFAULT_URL, Client, ClientError, ClientTurn, Format, tool_call_of
from turnwire.model import InteractionKind

QUIT = ("/quit", "/exit")


_FORMATS: dict[str, Format] = {"agenta": "agenta", "vercel": "vercel"}
"""``--format``'s values, as the client's ``Format``."""


@app.command()
def chat(
    url: Annotated[str, typer.Argument(metavar="URL", hidden=True, show_default=False)] = DEFAULT_URL,
    agent: Annotated[
        str | None, typer.Option(metavar="NAME", help="Talk to this agent (default: the server's default).")
    ] = None,
    session: Annotated[
        str | None,
        typer.Option(
            metavar="ID", help="Session id: continue this conversation (its stored history is shown)."
        ),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option(
            "--format", metavar="FORMAT", help="agenta (POST /invoke, SSE frames) or vercel (POST /chat)."
        ),
    ] = "agenta",
    api_key: Annotated[
        str | None,
        typer.Option(
            "--api-key",
            metavar="KEY",
            envvar="TURNWIRE_API_KEY",
            show_envvar=False,
            help="API key for a server started with --api-key, sent as Authorization: Bearer "
            "[env var: TURNWIRE_API_KEY].",
        ),
    ] = None,
) -> None:
    """Chat with an agent in the terminal.

    URL is the server (default: http://127.0.0.1:8000, what `turnwire serve` starts).

    Replies stream as they arrive; tool calls show as panels, reasoning dim. The agent's approval
    requests are asked inline ([y/N]), and so are its questions. Ctrl-C stops the running turn;
    Ctrl-D or /quit leaves. /help lists the chat's own commands (/new, /sessions, /agent NAME),
    which stay in the terminal. The session id is printed so you can come back with --session: the
    history comes from the server, or from the local copy in ~/.local/share/turnwire/chats when the
    server keeps none.
    """
    chosen = _FORMATS.get(fmt)
    if chosen is None:
        typer.echo(f"turnwire chat: --format: {fmt!r} is not a format; use agenta or vercel", err=True)
        raise typer.Exit(2)
    console = Console(highlight=False)
    client = Client(url, agent=agent, format=chosen, api_key=api_key or None)
    try:
        try:
            client.http.get("/health", timeout=5)  # any answer will do: only a dead address stops here
        except Exception as exc:
            typer.echo(f"turnwire chat: cannot reach {url}: {exc}", err=True)
            raise typer.Exit(1) from None
        try:
            agents = discover(client)
            if agent is not None:
                agents.check(agent)
        except Refused as exc:
            typer.echo(f"turnwire chat: {exc.option}: {exc}", err=True)
            raise typer.Exit(2) from None
        try:
            conv = client.session(session or new_session_id(), resume=session is not None)
            if session is not None and not conv.history:  # a server that keeps no history
                conv.conversation.history = chat_history.load(conv.id, fmt)
        except Exception as exc:
            typer.echo(f"turnwire chat: cannot reach {url}: {exc}", err=True)
            raise typer.Exit(1) from None
        state = ChatState(console, client, url, fmt, agents, conv)
        console.print(Text(state.header(), style="dim"))
        view = TurnView(console)
        if conv.history:
            view.history(conv.history)
        _loop(state, view, lambda: chat_history.save(state.conv.id, url, fmt, state.conv.history))
        console.print(Text(f"resume with: turnwire chat {url} --session {state.conv.id}", style="dim"))
    finally:
        client.close()


def _ask(console: Console, prompt: str) -> str | None:
    """One line from the user; ``None`` on Ctrl-D."""
    try:
        return console.input(escape(prompt))
    except EOFError:
        return None


def _loop(state: ChatState, view: TurnView, save: Callable[[], None]) -> None:
    console = state.console
    while True:
        try:
            text = _ask(console, "you> ")
        except KeyboardInterrupt:
            console.print(Text("\n(Ctrl-D or /quit leaves)", style="dim"))
            continue
        if text is None or text.strip() in QUIT:
            console.print()
            return
        if not text.strip():
            continue
        if text.lstrip().startswith("//"):  # "//x" sends "/x"
            text = text.lstrip()[1:]
        elif text.lstrip().startswith("/"):  # the chat's own commands never reach the agent
            state.run(text)
            continue
        turn: ClientTurn | None = _start(console, state.conv.send, text)
        while turn is not None:
            turn = _play(console, turn, view)
            save()


def _start(console: Console, begin: Callable[..., ClientTurn], *args: Any) -> ClientTurn | None:
    try:
        return begin(*args)
    except ClientError as exc:
        console.print(Text(f"the server refused the turn: {exc}", style="bold red"))
    except Exception as exc:
        console.print(Text(f"request failed: {exc}", style="bold red"))
    return None


def _stream(console: Console, turn: ClientTurn, view: TurnView) -> bool:
    """Show ``turn``'s events as they arrive; ``False`` if Ctrl-C stopped it or the stream broke off.

    Ctrl-C lands while waiting for the next event, never inside a rendering step (see interrupts)."""
    with held_interrupts() as interrupts:
        try:
            for event in turn:
                with interrupts.shielded():
                    view.show(event)
        except KeyboardInterrupt:
            with interrupts.shielded():
                view.close()
            turn.cancel()
            console.print(Text("(stopped)", style="yellow"))
            return False
        except Exception as exc:
            with interrupts.shielded():
                view.close()
            console.print(Text(f"the stream broke off: {exc}", style="bold red"))
            return False
        finally:
            with interrupts.shielded():
                view.close()
    return True


def _play(console: Console, turn: ClientTurn, view: TurnView) -> ClientTurn | None:
    """Show ``turn`` as it streams; answer what it asks; the next turn, if the user answered."""
    if not _stream(console, turn, view):
        return None
    pending = turn.pending
    if not pending:
        return None
    decisions: dict[str, bool] = {}
    for request in pending:
        if request.kind == InteractionKind.USER_APPROVAL:
            name, args = tool_call_of(request)
            try:
                answer = _ask(console, f"Approve {name} {as_text(args)}? [y/N] ")
            except KeyboardInterrupt:
                answer = None
            if answer is None:
                console.print(Text("(left unanswered)", style="yellow"))
                return None
            decisions[request.id] = answer.strip().lower() in ("y", "yes")
        elif request.kind == InteractionKind.USER_INPUT:
            payload = request.payload if isinstance(request.payload, dict) else {}
            prompt = str(payload.get("prompt") or "The agent asks for input")
            try:
                reply = _ask(console, f"{prompt} > ")
            except KeyboardInterrupt:
                reply = None
            if reply is None:
                console.print(Text("(left unanswered)", style="yellow"))
                return None
            return _start(console, turn.answer, reply)
        else:
            console.print(
                Text(f"the agent waits for a {request.kind} this terminal cannot answer", style="yellow")
            )
            return None
    return _start(console, turn.decide, decisions) if decisions else None
