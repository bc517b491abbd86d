"""What `turnwire chat` asks the server before the first message (may it talk, which agents are
there, which one is the default) and its own commands (``/help``, ``/new``, ``/sessions``,
``/agent NAME``): answered in the terminal, never sent to the agent."""

from __future__ import annotations

import html
import re
import uuid
from dataclasses import dataclass, field

import httpx
from rich.console import Console
from rich.text import Text

from turnwire.cli import chat_history
from turnwire.client import Client, Session

HELP = """\
/help          this list
/new           start a new conversation (same agent)
/sessions      the latest conversations on the server (continue one with --session ID)
/agent         the agents the server serves
/agent NAME    talk to NAME, in a new conversation
/quit, /exit   leave (so does Ctrl-D); Ctrl-C stops a running answer
//text         send "/text" to the agent"""

_DEFAULT_META = re.compile(r'<meta name="turnwire-default-agent" content="([^"]*)"')
SESSIONS_SHOWN = 20


class Refused(Exception):
    """The server cannot be talked to as asked: ``option`` is what to change, the message says why."""

    def __init__(self, option: str, message: str) -> None:
        super().__init__(message)
        self.option = option


@dataclass
class ServerAgents:
    """The agents a server serves (``None``: it lists none, e.g. another Agenta server) and its
    default one (``None`` when it does not say)."""

    names: list[str] | None = None
    default: str | None = None

    def check(self, agent: str) -> None:
        """``Refused`` unless the server serves ``agent`` (or lists no agents to check against)."""
        if self.names is not None and agent not in self.names:
            served = ", ".join(sorted(self.names)) or "none"
            raise Refused("--agent", f"no agent {agent!r} on this server; it serves: {served}")


def new_session_id() -> str:
    return f"chat-{uuid.uuid4().hex[:12]}"


def discover(client: Client) -> ServerAgents:
    """The server's agents (``GET /agents``) and default agent (the page's ``turnwire-default-agent``);
    ``Refused`` when the server wants an API key it did not get, or refuses the one it got."""
    try:
        r = client.http.get("/agents", timeout=10)
    except httpx.HTTPError:
        return ServerAgents()
    if r.status_code in (401, 403):
        if "authorization" in client.http.headers:
            raise Refused("--api-key", f"the server refused the API key ({r.status_code})")
        raise Refused("--api-key", "the server needs an API key: pass --api-key KEY or set TURNWIRE_API_KEY")
    found = ServerAgents()
    if r.status_code == 200:
        try:
            listed = r.json()
        except ValueError:
            listed = None
        if isinstance(listed, list):
            found.names = [
                a["name"] for a in listed if isinstance(a, dict) and isinstance(a.get("name"), str)
            ]
    if found.names is not None and len(found.names) == 1:
        found.default = found.names[0]
        return found
    try:
        page = client.http.get("/", headers={"accept": "text/html"}, timeout=10)
    except httpx.HTTPError:
        return found
    meta = _DEFAULT_META.search(page.text) if page.status_code == 200 else None
    if meta and meta.group(1):
        found.default = html.unescape(meta.group(1))
    return found


@dataclass
class ChatState:
    """The conversation the terminal is in, and what it knows of the server."""

    console: Console
    client: Client
    url: str
    fmt: str
    agents: ServerAgents
    conv: Session
    notes: list[str] = field(default_factory=list)

    @property
    def agent_name(self) -> str:
        return self.client.agent or self.agents.default or "(the server's default)"

    def header(self) -> str:
        return (
            f"turnwire chat · {self.url} · agent {self.agent_name} · session {self.conv.id} · {self.fmt}"
            " · /help"
        )

    def run(self, line: str) -> bool:
        """Handle ``line`` if it is one of the chat's own commands (``True``); else ``False``."""
        command, _, argument = line.strip().partition(" ")
        argument = argument.strip()
        if command == "/help":
            self.console.print(Text(HELP, style="dim"))
        elif command == "/new":
            self._switch(self.client.agent)
        elif command == "/sessions":
            self._sessions()
        elif command == "/agent":
            self._agent(argument)
        else:
            self.console.print(Text(f"unknown command {command}; /help lists them", style="yellow"))
        return True

    def _switch(self, agent: str | None) -> None:
        self.client.agent = agent
        self.conv = self.client.session(new_session_id())
        self.console.print(Text(self.header(), style="dim"))

    def _agent(self, name: str) -> None:
        if not name:
            if self.agents.names is None:
                self.console.print(Text("this server lists no agents", style="yellow"))
                return
            for served in sorted(self.agents.names):
                mark = " (talking to it)" if served == self.agent_name else ""
                default = " (default)" if served == self.agents.default else ""
                self.console.print(Text(f"  {served}{default}{mark}"))
            return
        try:
            self.agents.check(name)
        except Refused as exc:
            self.console.print(Text(str(exc), style="bold red"))
            return
        self._switch(name)

    def _sessions(self) -> None:
        params: dict[str, str | int] = {"limit": SESSIONS_SHOWN, "order_by": "updated_at"}
        try:
            r = self.client.http.get("/tasks", params=params, timeout=10)
        except httpx.HTTPError as exc:
            self.console.print(Text(f"cannot list the sessions: {exc}", style="bold red"))
            return
        rows = r.json() if r.status_code == 200 else None
        if isinstance(rows, list):
            listed = [(str(t.get("name") or t.get("id")), str(t.get("updated_at") or "")) for t in rows]
        else:  # a server that keeps no conversations: the copies this terminal kept
            listed = chat_history.saved_sessions(SESSIONS_SHOWN)
        if not listed:
            self.console.print(Text("no sessions yet", style="dim"))
            return
        for name, when in listed:
            here = "  (this one)" if name == self.conv.id else ""
            self.console.print(Text(f"  {name}  {when[:19].replace('T', ' ')}{here}"))
        self.console.print(Text(f"continue one with: turnwire chat {self.url} --session ID", style="dim"))
