"""The app context: the one object every route reads settings, agents, store, pub/sub and the
warm pool from.

``create_app`` and ``create_router`` build one and bind it to every route they make (a router
dependency puts it on the request), so a router mounted in someone else's app with its own limits
applies them on every route, Agentex routes included.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Annotated, Any

from fastapi import Depends
from starlette.requests import Request

from turnwire.conversations.pubsub import LocalPubSub, PubSub
from turnwire.runtime import Agent
from turnwire.runtime.approvals import ApprovalSigner, load_secret
from turnwire.runtime.warm import WarmPool, WarmStarts
from turnwire.server.errors import UnknownAgent
from turnwire.server.settings import Settings
from turnwire.store.base import Store

_STATE_KEY = "turnwire"


@dataclass(eq=False)
class AppContext:
    """What a turnwire app serves and with what: one per app (or mounted router)."""

    agents: dict[str, Agent]
    """Name -> agent; read on every request, so agents added later are served."""
    default_agent: str
    settings: Settings
    store: Store | None = None
    """Set by the app's lifespan (``None``: nothing is recorded; the Agentex routes answer 503)."""
    pubsub: PubSub = field(default_factory=LocalPubSub)
    _warm: WarmStarts | None = None

    @property
    def warm(self) -> WarmStarts:
        """The approval signer and warm pool, built on first use (reads or creates the secret)."""
        if self._warm is None:
            s = self.settings
            signer = ApprovalSigner(load_secret(s.approval_secret, s.approval_secret_file))
            pool = WarmPool(
                max_entries=s.session_pool_max, idle_ttl=s.session_idle_ttl, waiting_ttl=s.session_waiting_ttl
            )
            self._warm = WarmStarts(signer, pool)
        return self._warm

    def agent(self, name: str) -> Agent:
        agent = self.agents.get(name)
        if agent is None:
            raise UnknownAgent(name)
        return agent

    def running(self) -> AbstractAsyncContextManager[None]:
        """Open the store (and Redis) of the settings for as long as the block runs; what an app
        that mounts ``create_router`` runs in its lifespan."""
        from turnwire.server.lifespan import running

        return running(self)

    def bind(self, request: Request) -> None:
        """Router dependency: make this context the request's (see ``current``)."""
        request.state.turnwire = self


def current(request: Request) -> AppContext:
    """The context of the router that matched ``request``."""
    ctx: Any = getattr(request.state, _STATE_KEY, None)
    if ctx is None:
        raise RuntimeError("a turnwire route was mounted without its AppContext (use create_router)")
    return ctx


ContextDep = Annotated[AppContext, Depends(current)]
